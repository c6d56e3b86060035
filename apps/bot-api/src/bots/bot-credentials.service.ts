import { Injectable, Logger } from '@nestjs/common';
import { displayPrefix, generateSecretToken, hashSecretToken, SecretCipher } from '@app/auth';
import { Database, SqlTarget } from '@app/platform';
import { BotErrors } from '../bot-errors';
import { BotTokenCache } from './auth/bot-token-cache';
import { BotConfig } from '../config/bot.config';
import { BotsStore } from './bots.store';

/** How long the approval token waits for its single read (spec 3.3). */
export const ONE_TIME_TOKEN_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export interface IssuedToken {
  one_time_token: string;
  token_prefix: string;
}

/** Issuing, reading once, rotating and revoking bot tokens. Only hashes and one sealed copy are stored. */
@Injectable()
export class BotCredentialsService {
  private readonly cipher: SecretCipher;
  private readonly logger = new Logger(BotCredentialsService.name);

  constructor(
    private readonly database: Database,
    config: BotConfig,
    private readonly tokenCache: BotTokenCache,
    private readonly bots: BotsStore,
  ) {
    this.cipher = new SecretCipher(config.BOT_TOKEN_ENCRYPTION_KEY);
  }

  /** At approval: the new token is sealed for the developer's one read within seven days. */
  async issueForApproval(on: SqlTarget, botId: string): Promise<void> {
    const token = generateSecretToken('sbot_');
    await this.bots.issueToken(on, botId, {
      hash: hashSecretToken(token),
      prefix: displayPrefix(token),
      sealed: this.cipher.encrypt(botId, token),
      ttlMs: ONE_TIME_TOKEN_TTL_MS,
    });
  }

  /** The sealed token, destroyed in the same transaction that reads it; the row lock serialises parallel reads. */
  async readOnce(ownerId: string, botId: string): Promise<IssuedToken> {
    const outcome = await this.database.transaction(async (tx) => {
      const row = await this.bots.lockTokenCopy(tx, ownerId, botId);
      if (!row) throw BotErrors.notFound('Bot');
      if (row.review_status !== 'approved') {
        throw BotErrors.error('CONFLICT', 'The bot has no token before it is approved');
      }
      if (!row.one_time_token_ciphertext) return null;
      await this.bots.destroyTokenCopy(tx, botId);
      // An expired copy is destroyed too, but its plaintext never leaves this function.
      return row.expired ? null : this.open(botId, row.one_time_token_ciphertext);
    });
    if (!outcome) {
      throw BotErrors.error(
        'TOKEN_ALREADY_READ',
        'The one-time token was already read or has expired; rotate the token to get a new one',
      );
    }
    return { one_time_token: outcome, token_prefix: displayPrefix(outcome) };
  }

  /** A new token replaces the old one at once; its plaintext exists only in this response. */
  async rotate(ownerId: string, botId: string): Promise<IssuedToken> {
    const token = generateSecretToken('sbot_');
    await this.database.transaction(async (tx) => {
      const replaced = await this.bots.replaceToken(tx, ownerId, botId, {
        hash: hashSecretToken(token),
        prefix: displayPrefix(token),
      });
      if (!replaced) await this.explainMissing(tx, ownerId, botId);
    });
    this.tokenCache.invalidate(botId);
    return { one_time_token: token, token_prefix: displayPrefix(token) };
  }

  /** Stops the current token at once; a later rotation issues a working one again. */
  async revoke(ownerId: string, botId: string): Promise<void> {
    await this.database.transaction(async (tx) => {
      if (!(await this.bots.revokeToken(tx, ownerId, botId))) await this.explainMissing(tx, ownerId, botId);
    });
    this.tokenCache.invalidate(botId);
  }

  /** Sealed copies nobody read within their 7 days are destroyed, not kept encrypted forever. */
  purgeExpired(): Promise<number> {
    return this.bots.destroyExpiredTokenCopies();
  }

  /**
   * A copy sealed under an earlier BOT_TOKEN_ENCRYPTION_KEY cannot be opened any more; it counts as
   * gone, and the developer rotates to get a token.
   */
  private open(botId: string, sealed: string): string | null {
    try {
      return this.cipher.decrypt(botId, sealed);
    } catch {
      this.logger.warn(`one-time token of bot ${botId} could not be decrypted (key changed?); discarded`);
      return null;
    }
  }

  private async explainMissing(on: SqlTarget, ownerId: string, botId: string): Promise<never> {
    const found = await this.bots.reviewOf(on, botId, ownerId);
    if (!found) throw BotErrors.notFound('Bot');
    throw BotErrors.error('CONFLICT', 'The bot has no token before it is approved');
  }
}
