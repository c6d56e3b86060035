import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { BotApiClient, createBotApiClient } from '@clients/bot-api';
import { Agent, fetch as undiciFetch } from 'undici';
import { VoucherConfig } from '../config/voucher.config';

/** What bot-api says of a file id for an account. */
export type ImageOwnership = 'owned_image' | 'not_owned_image';

/** bot-api could not give an answer: unreachable, too slow, or it refused our service credential. */
export class FileServiceUnavailable extends Error {}

/** Connections kept open to bot-api; cover checks are rare, so a handful suffice. */
const MAX_CONNECTIONS = 8;

/**
 * Client of bot-api's internal file route, through the client generated from bot-api's OpenAPI
 * document (`clients/bot-api`), so a changed route or parameter fails the type check. Every call is
 * bounded by BOT_API_TIMEOUT_MS as a whole (connect, headers and body), so a stalled bot-api costs a
 * template call that long and no more.
 */
@Injectable()
export class BotApiFilesClient implements OnModuleDestroy {
  private readonly logger = new Logger(BotApiFilesClient.name);
  private readonly agent = new Agent({ connections: MAX_CONNECTIONS, keepAliveTimeout: 10_000 });
  private readonly client: BotApiClient;

  constructor(private readonly config: VoucherConfig) {
    this.client = createBotApiClient(config.BOT_API_URL, config.INTERNAL_API_TOKEN, (input) =>
      this.overAgent(input as Request),
    );
  }

  async imageOwnership(fileId: string, ownerId: string): Promise<ImageOwnership> {
    let status: number;
    try {
      const { response } = await this.client.GET('/api/v1/bots/internal/files/{fileId}', {
        params: { path: { fileId }, query: { owner: ownerId } },
        signal: AbortSignal.timeout(this.config.BOT_API_TIMEOUT_MS),
      });
      status = response.status;
    } catch (error) {
      this.logger.warn(`bot-api file check failed: ${(error as Error).name}: ${(error as Error).message}`);
      throw new FileServiceUnavailable('bot-api did not answer');
    }
    if (status === 200) return 'owned_image';
    if (status === 404) return 'not_owned_image';
    // 401 means the two services hold different INTERNAL_API_TOKENs: an operator's problem, not the caller's.
    this.logger.error(`bot-api file check answered ${status}`);
    throw new FileServiceUnavailable(`bot-api answered ${status}`);
  }

  /** The generated client's request, sent over this client's own bounded keep-alive pool. */
  private async overAgent(request: Request): Promise<Response> {
    const response = await undiciFetch(request.url, {
      method: request.method,
      headers: [...request.headers],
      signal: request.signal,
      dispatcher: this.agent,
    });
    return response as unknown as Response;
  }

  async onModuleDestroy(): Promise<void> {
    await this.agent.close();
  }
}
