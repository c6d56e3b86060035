import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Agent, request } from 'undici';
import { VoucherConfig } from '../config/voucher.config';

/** What bot-api says of a file id for an account. */
export type ImageOwnership = 'owned_image' | 'not_owned_image';

/** bot-api could not give an answer: unreachable, too slow, or it refused our service credential. */
export class FileServiceUnavailable extends Error {}

/** Connections kept open to bot-api; cover checks are rare, so a handful suffice. */
const MAX_CONNECTIONS = 8;

/**
 * Client of bot-api's internal file route. Every call is bounded by BOT_API_TIMEOUT_MS as a whole
 * (connect, headers and body), so a stalled bot-api costs a template call that long and no more.
 */
@Injectable()
export class BotApiFilesClient implements OnModuleDestroy {
  private readonly logger = new Logger(BotApiFilesClient.name);
  private readonly agent = new Agent({ connections: MAX_CONNECTIONS, keepAliveTimeout: 10_000 });
  private readonly base: string;

  constructor(private readonly config: VoucherConfig) {
    this.base = config.BOT_API_URL.replace(/\/+$/, '');
  }

  async imageOwnership(fileId: string, ownerId: string): Promise<ImageOwnership> {
    const url = `${this.base}/api/v1/bots/internal/files/${encodeURIComponent(fileId)}?owner=${encodeURIComponent(ownerId)}`;
    let status: number;
    try {
      const response = await request(url, {
        method: 'GET',
        dispatcher: this.agent,
        headers: { authorization: `Bearer ${this.config.INTERNAL_API_TOKEN}` },
        signal: AbortSignal.timeout(this.config.BOT_API_TIMEOUT_MS),
      });
      status = response.statusCode;
      await response.body.dump();
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

  async onModuleDestroy(): Promise<void> {
    await this.agent.close();
  }
}
