import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { displayPrefix, generateSecretToken, hashSecretToken, SecretCipher } from '@app/auth';
import { ApiError } from '@app/envelope';
import { DataSource, EntityManager } from 'typeorm';
import { BotTokenCache } from '../bot-auth/bot-token-cache';
import { BotConfig } from '../config/bot.config';

/** How long the approval token waits for its single read (spec 3.3). */
export const ONE_TIME_TOKEN_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export interface IssuedToken {
  one_time_token: string;
  token_prefix: string;
}

interface TokenRow {
  review_status: string;
  one_time_token_ciphertext: string | null;
  expired: boolean;
}

/** Issuing, reading once, rotating and revoking bot tokens. Only hashes and one sealed copy are stored. */
@Injectable()
export class BotCredentialsService {
  private readonly cipher: SecretCipher;
  private readonly logger = new Logger(BotCredentialsService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    config: BotConfig,
    private readonly tokenCache: BotTokenCache,
  ) {
    this.cipher = new SecretCipher(config.BOT_TOKEN_ENCRYPTION_KEY);
  }

  /** At approval: the new token is sealed for the developer's one read within seven days. */
  async issueForApproval(manager: EntityManager, botId: string): Promise<void> {
    const token = generateSecretToken('sbot_');
    await manager.query(
      `UPDATE bots SET token_hash = $2, token_prefix = $3, token_issued_at = now(), token_revoked_at = NULL,
              one_time_token_ciphertext = $4, one_time_token_expires_at = now() + $5 * interval '1 millisecond'
        WHERE id = $1`,
      [botId, hashSecretToken(token), displayPrefix(token), this.cipher.encrypt(botId, token), ONE_TIME_TOKEN_TTL_MS],
    );
  }

  /** The sealed token, destroyed in the same transaction that reads it; the row lock serialises parallel reads. */
  async readOnce(ownerId: string, botId: string): Promise<IssuedToken> {
    const outcome = await this.dataSource.transaction(async (manager) => {
      const [row]: TokenRow[] = await manager.query(
        `SELECT review_status, one_time_token_ciphertext, one_time_token_expires_at <= now() AS expired
           FROM bots WHERE id = $1 AND owner_id = $2 FOR UPDATE`,
        [botId, ownerId],
      );
      if (!row) throw ApiError.notFound('Bot');
      if (row.review_status !== 'approved') {
        throw new ApiError(409, 'CONFLICT', 'The bot has no token before it is approved');
      }
      if (!row.one_time_token_ciphertext) return null;
      await manager.query(
        `UPDATE bots SET one_time_token_ciphertext = NULL, one_time_token_expires_at = NULL WHERE id = $1`,
        [botId],
      );
      // An expired copy is destroyed too, but its plaintext never leaves this function.
      return row.expired ? null : this.open(botId, row.one_time_token_ciphertext);
    });
    if (!outcome) {
      throw new ApiError(
        410,
        'TOKEN_ALREADY_READ',
        'The one-time token was already read or has expired; rotate the token to get a new one',
      );
    }
    return { one_time_token: outcome, token_prefix: displayPrefix(outcome) };
  }

  /** A new token replaces the old one at once; its plaintext exists only in this response. */
  async rotate(ownerId: string, botId: string): Promise<IssuedToken> {
    const token = generateSecretToken('sbot_');
    await this.dataSource.transaction(async (manager) => {
      const [rows]: [unknown[], number] = await manager.query(
        `UPDATE bots SET token_hash = $3, token_prefix = $4, token_issued_at = now(), token_revoked_at = NULL,
                one_time_token_ciphertext = NULL, one_time_token_expires_at = NULL, updated_at = now()
          WHERE id = $1 AND owner_id = $2 AND review_status = 'approved' RETURNING id`,
        [botId, ownerId, hashSecretToken(token), displayPrefix(token)],
      );
      if (rows.length === 0) await this.explainMissing(manager, ownerId, botId);
    });
    this.tokenCache.invalidate(botId);
    return { one_time_token: token, token_prefix: displayPrefix(token) };
  }

  /** Stops the current token at once; a later rotation issues a working one again. */
  async revoke(ownerId: string, botId: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const [rows]: [unknown[], number] = await manager.query(
        `UPDATE bots SET token_revoked_at = COALESCE(token_revoked_at, now()),
                one_time_token_ciphertext = NULL, one_time_token_expires_at = NULL, updated_at = now()
          WHERE id = $1 AND owner_id = $2 AND review_status = 'approved' RETURNING id`,
        [botId, ownerId],
      );
      if (rows.length === 0) await this.explainMissing(manager, ownerId, botId);
    });
    this.tokenCache.invalidate(botId);
  }

  /** Sealed copies nobody read within their 7 days are destroyed, not kept encrypted forever. */
  async purgeExpired(): Promise<number> {
    const [, affected]: [unknown[], number] = await this.dataSource.query(
      `UPDATE bots SET one_time_token_ciphertext = NULL, one_time_token_expires_at = NULL
        WHERE one_time_token_expires_at <= now()`,
    );
    return affected;
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

  private async explainMissing(manager: EntityManager, ownerId: string, botId: string): Promise<never> {
    const found: unknown[] = await manager.query(`SELECT 1 FROM bots WHERE id = $1 AND owner_id = $2`, [
      botId,
      ownerId,
    ]);
    if (found.length === 0) throw ApiError.notFound('Bot');
    throw new ApiError(409, 'CONFLICT', 'The bot has no token before it is approved');
  }
}
