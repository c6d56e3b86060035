import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { botAvailableSql } from '@app/bot-delivery';
import { DataSource, EntityManager } from 'typeorm';
import { Bot, FriendRequestMode, ReviewStatus } from './entities/bot.entity';
import { isUniqueViolation } from './bot-errors';
import { systemUserIdFor } from '../users/bot-system-user-id';

/** What a developer gives when applying for a bot; everything else starts at its default. */
export type BotApplication = Pick<Bot, 'id' | 'ownerId' | 'name' | 'username' | 'description' | 'avatar' | 'scopes'>;

/** The sealed one-time token of a bot, locked for its single read. */
export interface TokenCopy {
  review_status: ReviewStatus;
  one_time_token_ciphertext: string | null;
  expired: boolean;
}

/** Every statement on `bots`; a bot's delivery settings are @app/bot-delivery's (DeliveryDomain). */
@Injectable()
export class BotsStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** A new application: pending review, disabled, no token yet. */
  async insertApplication(manager: EntityManager, application: BotApplication): Promise<void> {
    const repo = manager.getRepository(Bot);
    await repo.insert(
      repo.create({
        ...application,
        shortDescription: null,
        reviewStatus: 'pending',
        rejectionReason: null,
        reviewedBy: null,
        reviewedAt: null,
        status: 'disabled',
        systemUserId: null,
        supportsInlineQueries: false,
        friendRequestMode: 'auto_accept',
        rateLimits: {},
        virtualMembersEnabled: false,
        tokenHash: null,
        tokenPrefix: null,
        tokenIssuedAt: null,
        tokenRevokedAt: null,
        oneTimeTokenCiphertext: null,
        oneTimeTokenExpiresAt: null,
      }),
    );
  }

  /** Whether another bot, or the system user of another bot, holds the username (a rejected application does not). */
  async usernameTaken(manager: EntityManager, username: string, botId: string, systemUserId: string): Promise<boolean> {
    const taken: unknown[] = await manager.query(
      `SELECT 1 FROM bots WHERE lower(username) = lower($1) AND review_status <> 'rejected' AND id <> $2
       UNION ALL SELECT 1 FROM users WHERE lower(username) = lower($1) AND id <> $3 LIMIT 1`,
      [username, botId, systemUserId],
    );
    return taken.length > 0;
  }

  /** Which of these usernames (compared in lower case) another bot or its system user holds; answered in lower case. */
  async takenUsernames(manager: EntityManager, usernames: string[], botId: string): Promise<Set<string>> {
    const rows: Array<{ username: string }> = await manager.query(
      `SELECT lower(username) AS username FROM bots
        WHERE lower(username) = ANY($1) AND review_status <> 'rejected' AND id <> $2
       UNION SELECT lower(username) FROM users WHERE lower(username) = ANY($1) AND id <> $3`,
      [usernames.map((username) => username.toLowerCase()), botId, systemUserIdFor(botId)],
    );
    return new Set(rows.map((row) => row.username));
  }

  /**
   * Gives the bot this username unless the unique index says another bot has it (one that committed, or
   * one still being approved, which this statement waits for). A savepoint keeps the surrounding
   * transaction usable after a refusal, so the caller can try the next name.
   */
  async claimUsername(manager: EntityManager, botId: string, username: string): Promise<boolean> {
    await manager.query(`SAVEPOINT claim_username`);
    try {
      await manager.query(`UPDATE bots SET username = $2, updated_at = now() WHERE id = $1`, [botId, username]);
    } catch (error) {
      if (!isUniqueViolation(error, 'bots_username_lower')) throw error;
      await manager.query(`ROLLBACK TO SAVEPOINT claim_username`);
      return false;
    }
    await manager.query(`RELEASE SAVEPOINT claim_username`);
    return true;
  }

  /** The owner's bots, newest first. */
  pageOfOwner(ownerId: string, skip: number, take: number): Promise<[Bot[], number]> {
    return this.dataSource
      .getRepository(Bot)
      .findAndCount({ where: { ownerId }, order: { createdAt: 'DESC', id: 'ASC' }, skip, take });
  }

  /** The review queue (or every bot), oldest first. */
  pageForReview(reviewStatus: ReviewStatus | undefined, skip: number, take: number): Promise<[Bot[], number]> {
    return this.dataSource.getRepository(Bot).findAndCount({
      where: reviewStatus ? { reviewStatus } : {},
      order: { createdAt: 'ASC', id: 'ASC' },
      skip,
      take,
    });
  }

  findOwned(ownerId: string, botId: string): Promise<Bot | null> {
    return this.dataSource.getRepository(Bot).findOneBy({ id: botId, ownerId });
  }

  find(manager: EntityManager, botId: string): Promise<Bot | null> {
    return manager.getRepository(Bot).findOneBy({ id: botId });
  }

  /** A bot known to exist (it authenticated, or this transaction just changed it). */
  get(botId: string, manager: EntityManager = this.dataSource.manager): Promise<Bot> {
    return manager.getRepository(Bot).findOneByOrFail({ id: botId });
  }

  /** The bot locked for an update in this transaction; `ownerId` confines it to the owner's bots. */
  lock(manager: EntityManager, botId: string, ownerId?: string): Promise<Bot | null> {
    return manager.getRepository(Bot).findOne({
      where: ownerId === undefined ? { id: botId } : { id: botId, ownerId },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /** FOR SHARE: a concurrent change of the bot waits until this transaction ends. */
  lockShared(manager: EntityManager, botId: string): Promise<Bot | null> {
    return manager.getRepository(Bot).findOne({ where: { id: botId }, lock: { mode: 'pessimistic_read' } });
  }

  async save(manager: EntityManager, bot: Bot): Promise<void> {
    await manager.getRepository(Bot).save(bot);
  }

  /** The bot's review state; undefined when there is no such bot (of this owner, when given). */
  async reviewOf(
    manager: EntityManager,
    botId: string,
    ownerId?: string,
  ): Promise<{ review_status: ReviewStatus } | undefined> {
    const rows: Array<{ review_status: ReviewStatus }> =
      ownerId === undefined
        ? await manager.query(`SELECT review_status FROM bots WHERE id = $1`, [botId])
        : await manager.query(`SELECT review_status FROM bots WHERE id = $1 AND owner_id = $2`, [botId, ownerId]);
    return rows[0];
  }

  /**
   * pending → approved and enabled (still polling, as every bot starts). The condition lets exactly one of two concurrent
   * approvals through; undefined when the bot was not pending.
   */
  async approvePending(
    manager: EntityManager,
    botId: string,
    staffId: string,
  ): Promise<{ name: string; username: string | null } | undefined> {
    const [moved]: [{ name: string; username: string | null }[], number] = await manager.query(
      `UPDATE bots SET review_status = 'approved', status = 'enabled', reviewed_by = $2, reviewed_at = now(), updated_at = now()
        WHERE id = $1 AND review_status = 'pending'
       RETURNING name, username`,
      [botId, staffId],
    );
    return moved[0];
  }

  async linkSystemUser(manager: EntityManager, botId: string, systemUserId: string): Promise<void> {
    await manager.query(`UPDATE bots SET system_user_id = $2 WHERE id = $1`, [botId, systemUserId]);
  }

  /** pending → rejected; false when the bot was not pending. */
  async rejectPending(manager: EntityManager, botId: string, reason: string, staffId: string): Promise<boolean> {
    const [moved]: [unknown[], number] = await manager.query(
      `UPDATE bots SET review_status = 'rejected', rejection_reason = $2, reviewed_by = $3, reviewed_at = now(),
              updated_at = now()
        WHERE id = $1 AND review_status = 'pending' RETURNING id`,
      [botId, reason, staffId],
    );
    return moved.length > 0;
  }

  /** The bot whose current, unrevoked token has this SHA-256 hash, with the hash (never selected otherwise). */
  findByTokenHash(hash: string): Promise<Bot | null> {
    return this.dataSource
      .getRepository(Bot)
      .createQueryBuilder('bot')
      .addSelect('bot.tokenHash')
      .where('bot.tokenHash = :hash AND bot.tokenRevokedAt IS NULL', { hash })
      .getOne();
  }

  /**
   * The first `length` hex characters of every current token's hash, concatenated: one string, so that
   * even a large table comes back as one value rather than a row per bot.
   */
  async currentTokenHashPrefixes(length: number): Promise<string> {
    const [row]: Array<{ prefixes: string }> = await this.dataSource.query(
      `SELECT coalesce(string_agg(left(token_hash, $1), ''), '') AS prefixes
         FROM bots WHERE token_hash IS NOT NULL AND token_revoked_at IS NULL`,
      [length],
    );
    return row.prefixes;
  }

  /** At approval: the token's hash, and its sealed copy for the developer's one read within `ttlMs`. */
  async issueToken(
    manager: EntityManager,
    botId: string,
    token: { hash: string; prefix: string; sealed: string; ttlMs: number },
  ): Promise<void> {
    await manager.query(
      `UPDATE bots SET token_hash = $2, token_prefix = $3, token_issued_at = now(), token_revoked_at = NULL,
              one_time_token_ciphertext = $4, one_time_token_expires_at = now() + $5 * interval '1 millisecond'
        WHERE id = $1`,
      [botId, token.hash, token.prefix, token.sealed, token.ttlMs],
    );
  }

  /** The row lock serialises parallel reads of the one-time token. */
  async lockTokenCopy(manager: EntityManager, ownerId: string, botId: string): Promise<TokenCopy | undefined> {
    const [row]: TokenCopy[] = await manager.query(
      `SELECT review_status, one_time_token_ciphertext, one_time_token_expires_at <= now() AS expired
         FROM bots WHERE id = $1 AND owner_id = $2 FOR UPDATE`,
      [botId, ownerId],
    );
    return row;
  }

  async destroyTokenCopy(manager: EntityManager, botId: string): Promise<void> {
    await manager.query(
      `UPDATE bots SET one_time_token_ciphertext = NULL, one_time_token_expires_at = NULL WHERE id = $1`,
      [botId],
    );
  }

  /** A new token in place of the old one, for an approved bot of the owner; false when there is none. */
  async replaceToken(
    manager: EntityManager,
    ownerId: string,
    botId: string,
    token: { hash: string; prefix: string },
  ): Promise<boolean> {
    const [rows]: [unknown[], number] = await manager.query(
      `UPDATE bots SET token_hash = $3, token_prefix = $4, token_issued_at = now(), token_revoked_at = NULL,
              one_time_token_ciphertext = NULL, one_time_token_expires_at = NULL, updated_at = now()
        WHERE id = $1 AND owner_id = $2 AND review_status = 'approved' RETURNING id`,
      [botId, ownerId, token.hash, token.prefix],
    );
    return rows.length > 0;
  }

  /** Stops the current token of an approved bot of the owner; false when there is none. */
  async revokeToken(manager: EntityManager, ownerId: string, botId: string): Promise<boolean> {
    const [rows]: [unknown[], number] = await manager.query(
      `UPDATE bots SET token_revoked_at = COALESCE(token_revoked_at, now()),
              one_time_token_ciphertext = NULL, one_time_token_expires_at = NULL, updated_at = now()
        WHERE id = $1 AND owner_id = $2 AND review_status = 'approved' RETURNING id`,
      [botId, ownerId],
    );
    return rows.length > 0;
  }

  /** Sealed copies nobody read in time; returns how many were destroyed. */
  async destroyExpiredTokenCopies(): Promise<number> {
    const [, affected]: [unknown[], number] = await this.dataSource.query(
      `UPDATE bots SET one_time_token_ciphertext = NULL, one_time_token_expires_at = NULL
        WHERE one_time_token_expires_at <= now()`,
    );
    return affected;
  }

  async setFriendRequestMode(manager: EntityManager, botId: string, mode: FriendRequestMode): Promise<void> {
    await manager.query(`UPDATE bots SET friend_request_mode = $2, updated_at = now() WHERE id = $1`, [botId, mode]);
  }

  /** `lock` takes the row FOR SHARE, so the mode cannot change before this transaction ends. */
  async friendRequestModeOf(
    manager: EntityManager,
    botId: string,
    lock = false,
  ): Promise<FriendRequestMode | undefined> {
    const [row]: { friend_request_mode: FriendRequestMode }[] = await manager.query(
      `SELECT friend_request_mode FROM bots WHERE id = $1 ${lock ? 'FOR SHARE' : ''}`,
      [botId],
    );
    return row?.friend_request_mode;
  }

  async setDescription(botId: string, text: string | null): Promise<void> {
    await this.dataSource.query(`UPDATE bots SET description = $2, updated_at = now() WHERE id = $1`, [botId, text]);
  }

  async setShortDescription(botId: string, text: string | null): Promise<void> {
    await this.dataSource.query(`UPDATE bots SET short_description = $2, updated_at = now() WHERE id = $1`, [
      botId,
      text,
    ]);
  }

  /** The available bot with this @username (any case), for inline queries; null when there is none. */
  availableByUsername(manager: EntityManager, username: string): Promise<Bot | null> {
    return manager
      .getRepository(Bot)
      .createQueryBuilder('b')
      .where('lower(b.username) = lower(:username)', { username })
      .andWhere(botAvailableSql('b'))
      .getOne();
  }

  /** Whether staff switched virtual members on for the bot, read FOR SHARE so a concurrent switch waits. */
  async virtualMembersEnabled(manager: EntityManager, botId: string): Promise<boolean> {
    const rows: Array<{ virtual_members_enabled: boolean }> = await manager.query(
      `SELECT virtual_members_enabled FROM bots WHERE id = $1 FOR SHARE`,
      [botId],
    );
    return rows[0]?.virtual_members_enabled === true;
  }
}
