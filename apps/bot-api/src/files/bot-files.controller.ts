import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { BotAuth, CurrentBot } from '../bots/auth';
import { BotErrorDoc } from '../bot-errors';
import type { Bot } from '../bots/entities/bot.entity';
import { BOT_NOT_AVAILABLE, MethodDocs } from '../method-docs';
import { CompleteUploadDto, GetFileDto, UploadCredentialsDto } from './dto/upload.dto';
import { FileInfoView, UploadCredentialsView } from './dto/file.view';
import { FileUploadsService } from './file-uploads.service';
import { COMPLETE_ERRORS, CREDENTIALS_DOC, COMPLETE_DOC } from './upload-docs';

const FILE_NOT_VISIBLE: BotErrorDoc = {
  code: 'NOT_FOUND',
  when: "no such file, or another bot's upload, or a file the bot did not receive",
};

const GET_FILE_DOCS: Parameters<typeof MethodDocs> = [
  'getFile: metadata with a temporary download URL',
  { status: 200, description: 'The file', type: FileInfoView },
  'VALIDATION',
  BOT_NOT_AVAILABLE,
  FILE_NOT_VISIBLE,
];

/** Bot uploads (spec 4.2 "Upload") and getFile. */
@ApiTags('bot files')
@BotAuth()
@Controller('api/v1/bots')
export class BotFilesController {
  constructor(private readonly uploads: FileUploadsService) {}

  @Post('files/upload-credentials')
  @MethodDocs(...CREDENTIALS_DOC, 'VALIDATION', BOT_NOT_AVAILABLE, {
    code: 'STORAGE_QUOTA_EXCEEDED',
    when: "the bot's files and pending uploads plus this one would pass BOT_STORAGE_QUOTA_BYTES",
  })
  credentials(@CurrentBot() bot: Bot, @Body() dto: UploadCredentialsDto): Promise<UploadCredentialsView> {
    return this.uploads.credentials({ kind: 'bot', botId: bot.id }, dto);
  }

  @Post('files/complete')
  @MethodDocs(...COMPLETE_DOC, ...COMPLETE_ERRORS, BOT_NOT_AVAILABLE)
  complete(@CurrentBot() bot: Bot, @Body() dto: CompleteUploadDto): Promise<FileInfoView> {
    return this.uploads.complete({ kind: 'bot', botId: bot.id }, dto);
  }

  @Get('getFile')
  @MethodDocs(...GET_FILE_DOCS)
  getFileByQuery(@CurrentBot() bot: Bot, @Query() dto: GetFileDto): Promise<FileInfoView> {
    return this.uploads.getFile(bot, dto.file_id);
  }

  @Post('getFile')
  @HttpCode(200)
  @MethodDocs(...GET_FILE_DOCS)
  getFile(@CurrentBot() bot: Bot, @Body() dto: GetFileDto): Promise<FileInfoView> {
    return this.uploads.getFile(bot, dto.file_id);
  }
}
