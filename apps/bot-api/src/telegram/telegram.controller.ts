import { Controller, Get, HttpCode, Param, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags, SchemaObject } from '@nestjs/swagger';
import { pipeline } from 'node:stream/promises';
import { hashSecretToken } from '@app/auth';
import { ApiError } from '@app/envelope';
import type { Request, Response } from 'express';
import { botOf } from '../bots/auth/bot-request';
import { BotConfig } from '../config/bot.config';
import { FileUploadsService } from '../files/file-uploads.service';
import { userContentHeaders } from '../files/user-content-headers';
import { fileIdOfPath } from './methods/media.methods';
import { TelegramArgs } from './telegram-args';
import { TelegramError, TELEGRAM_TEXTS } from './telegram-errors';
import { TelegramExceptionFilter } from './telegram-exception.filter';
import { TelegramGatewayService } from './telegram-gateway.service';
import { MultipartSlots } from './multipart-slots';
import { parseTelegramCall } from './telegram-params';
import { pathToken, TelegramTokenGuard } from './telegram-token.guard';

/** A media group carries at most ten files; one more part is the thumbnail of none. */
const MAX_FILE_PARTS = 10;
const MAX_FILE_BYTES = 50 * 1024 * 1024;

const TELEGRAM_SUCCESS = {
  description: "`{ ok: true, result }`; result is the method's Telegram object",
  schema: {
    type: 'object',
    required: ['ok', 'result'],
    properties: { ok: { type: 'boolean', enum: [true] }, result: {} },
  },
};
const TELEGRAM_FAILURE: SchemaObject = {
  type: 'object',
  required: ['ok', 'error_code', 'description'],
  properties: {
    ok: { type: 'boolean', enum: [false] },
    error_code: { type: 'integer' },
    description: { type: 'string', example: 'Bad Request: chat not found' },
    parameters: { type: 'object', properties: { retry_after: { type: 'integer' } } },
  },
};

function failures(): MethodDecorator {
  const docs: Array<[number, string]> = [
    [400, 'Bad Request: <what>, e.g. `Bad Request: chat not found`'],
    [401, 'Unauthorized: unknown or revoked token, or the bot is not available'],
    [403, 'Forbidden: <what>'],
    [404, 'Not Found: method not found'],
    [409, 'Conflict: terminated by other getUpdates request; …'],
    [408, 'Request Timeout: a multipart body took longer than TELEGRAM_UPLOAD_TIMEOUT_MS'],
    [413, 'Request Entity Too Large'],
    [429, 'Too Many Requests: retry after N, with parameters.retry_after'],
  ];
  return (target, key, descriptor) => {
    for (const [status, description] of docs)
      ApiResponse({ status, description, schema: TELEGRAM_FAILURE })(target, key, descriptor);
  };
}

/**
 * The Telegram Bot API wire protocol over bot-api's own services (docs/telegram.md): set a
 * framework's API root to the service's base URL (or, as before, `<host>/telegram`) and its calls land here.
 */
@ApiTags('telegram')
@Controller({ path: ['', 'telegram'] })
@UseFilters(TelegramExceptionFilter)
@UseGuards(TelegramTokenGuard)
export class TelegramController {
  constructor(
    private readonly gateway: TelegramGatewayService,
    private readonly files: FileUploadsService,
    private readonly config: BotConfig,
    private readonly multipartSlots: MultipartSlots,
  ) {}

  @Post('bot:token/:method')
  @HttpCode(200)
  @ApiOperation({ summary: 'Telegram Bot API method; parameters as JSON, url-encoded or multipart form' })
  @ApiParam({ name: 'token', description: 'The bot token (sbot_…)' })
  @ApiParam({ name: 'method', description: 'A Telegram method name, case-insensitive (docs/telegram.md)' })
  @ApiOkResponse(TELEGRAM_SUCCESS)
  @failures()
  post(@Param('method') method: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.call(method, req, res);
  }

  @Get('bot:token/:method')
  @ApiOperation({ summary: 'Telegram Bot API method with query-string parameters' })
  @ApiParam({ name: 'token', description: 'The bot token (sbot_…)' })
  @ApiParam({ name: 'method', description: 'A Telegram method name, case-insensitive (docs/telegram.md)' })
  @ApiOkResponse(TELEGRAM_SUCCESS)
  @failures()
  get(@Param('method') method: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.call(method, req, res);
  }

  @Get('file/bot:token/*path')
  @ApiOperation({ summary: 'Download a file by the file_path that getFile gave' })
  @ApiParam({ name: 'token', description: 'The bot token (sbot_…)' })
  @ApiParam({ name: 'path', description: 'file_path from getFile' })
  @ApiOkResponse({ description: 'The file bytes with their type', content: { 'application/octet-stream': {} } })
  @ApiResponse({ status: 401, description: 'Unauthorized', schema: TELEGRAM_FAILURE })
  @ApiResponse({ status: 404, description: 'Not Found: no file the bot may read', schema: TELEGRAM_FAILURE })
  async download(@Req() req: Request, @Res() res: Response): Promise<void> {
    const bot = botOf(req);
    if (!bot) throw new TelegramError(401, TELEGRAM_TEXTS.unauthorized);
    const segments = (req.params as Record<string, string | string[]>).path;
    const fileId = fileIdOfPath(Array.isArray(segments) ? segments.join('/') : String(segments ?? ''));
    if (!fileId) throw new TelegramError(404, TELEGRAM_TEXTS.notFound);
    const { file, body } = await this.files.readForBot(bot, fileId).catch((error: unknown) => {
      if (error instanceof ApiError && error.status === 404) throw new TelegramError(404, TELEGRAM_TEXTS.notFound);
      throw error;
    });
    res.status(200).set({
      'Content-Type': file.mimeType,
      'Content-Length': String(file.fileSize),
      ...userContentHeaders(file.mimeType),
    });
    await pipeline(body, res);
  }

  private async call(method: string, req: Request, res: Response): Promise<void> {
    const bot = botOf(req);
    if (!bot) throw new TelegramError(401, TELEGRAM_TEXTS.unauthorized);
    // An unknown method is refused before its body is read.
    if (!this.gateway.has(method)) throw new TelegramError(404, TELEGRAM_TEXTS.methodNotFound);
    const parsed = await parseTelegramCall(req, res, {
      bodyLimit: this.config.BODY_LIMIT,
      fileBytes: MAX_FILE_BYTES,
      files: MAX_FILE_PARTS,
      totalBytes: MAX_FILE_BYTES,
      slots: this.multipartSlots,
      botId: bot.id,
      bodyTimeoutMs: this.config.TELEGRAM_UPLOAD_TIMEOUT_MS,
    });
    // The parts stay in memory (and the slot taken) while they are stored and probed, until the answer.
    const result = await this.gateway
      .run(method, { bot, tokenHash: hashSecretToken(pathToken(req)), args: new TelegramArgs(parsed) })
      .finally(parsed.release);
    res
      .status(200)
      .type('application/json')
      .send(JSON.stringify({ ok: true, result }));
  }
}
