import { Injectable } from '@nestjs/common';
import { Database, execute, executeAll, executeFirst, RowOf, SqlTarget } from '@app/platform';
import { botAvailable } from '@app/bot-delivery';
import { db, prepared, type Bots, type JsonObject } from '@app/bot-schema';
import { Compilable, NotNull, RawBuilder, sql, Updateable } from 'kysely';
import type { BotRateLimits, FriendRequestMode, ReviewStatus } from './entities/bot.entity';
import { isUniqueViolation } from './bot-errors';
import { systemUserIdFor } from '../users/bot-system-user-id';

/** The columns of a bot as the app reads it, with the delivery settings its own row shows. */
const BOT_COLUMNS = [
  'b.id',
  'b.owner_id as ownerId',
  'b.name',
  'b.username',
  'b.description',
  'b.short_description as shortDescription',
  'b.avatar',
  'b.scopes',
  'b.review_status as reviewStatus',
  'b.rejection_reason as rejectionReason',
  'b.reviewed_by as reviewedBy',
  'b.reviewed_at as reviewedAt',
  'b.status',
  'b.system_user_id as systemUserId',
  'b.supports_inline_queries as supportsInlineQueries',
  'b.friend_request_mode as friendRequestMode',
  'b.virtual_members_enabled as virtualMembersEnabled',
  'b.token_prefix as tokenPrefix',
  'b.token_issued_at as tokenIssuedAt',
  'b.token_revoked_at as tokenRevokedAt',
  'b.one_time_token_expires_at as oneTimeTokenExpiresAt',
  'b.created_at as createdAt',
  'b.updated_at as updatedAt',
  's.delivery_mode as deliveryMode',
  's.allowed_updates as allowedUpdates',
  's.auto_redeliver_dead_letters as autoRedeliverDeadLetters',
  's.updated_at as deliveryUpdatedAt',
] as const;

/**
 * Bots with their delivery settings (@app/bot-delivery owns them, this only reads them). Every bot gets
 * its settings row with its application; the outer join still reads a bot without one, and FOR UPDATE /
 * FOR SHARE name `b` so that only the bot's row is locked.
 */
function selectBots() {
  return db
    .selectFrom('bots as b')
    .leftJoin('bot_delivery_settings as s', 's.bot_id', 'b.id')
    .select(BOT_COLUMNS)
    .select((eb) => eb.ref('b.rate_limits').$castTo<BotRateLimits>().as('rateLimits'))
    .$narrowType<{ deliveryMode: NotNull; autoRedeliverDeadLetters: NotNull; deliveryUpdatedAt: NotNull }>();
}

/** A bot as every module reads it: its row, and the delivery settings shown with it. The token hash is never in it. */
export type Bot = RowOf<ReturnType<typeof selectBots>>;

/** The hot path of every bot call: the bot whose current, unrevoked token has this SHA-256 hash. */
const BOT_BY_TOKEN_HASH = prepared('bot_api_bot_by_token_hash', (_, p: { hash: string }) =>
  selectBots()
    .select('b.token_hash as tokenHash')
    .where('b.token_hash', '=', p.hash)
    .where('b.token_revoked_at', 'is', null),
);

export type BotWithTokenHash = RowOf<typeof BOT_BY_TOKEN_HASH>;

/** What a developer gives when applying for a bot; everything else starts at its default. */
export type BotApplication = Pick<Bot, 'id' | 'ownerId' | 'name' | 'username' | 'description' | 'avatar' | 'scopes'>;

/** The columns a developer or staff change on a bot (`updated_at` follows them). */
export type BotChanges = Pick<
  Updateable<Bots>,
  | 'name'
  | 'username'
  | 'description'
  | 'short_description'
  | 'avatar'
  | 'supports_inline_queries'
  | 'status'
  | 'virtual_members_enabled'
> & { rate_limits?: BotRateLimits };

/** A statement the builder cannot say (savepoints), compiled by the same compiler. */
function rawStatement(statement: RawBuilder<unknown>): Compilable<unknown> {
  return { compile: () => statement.compile(db) };
}

/** Usernames compare in lower case, as the unique index `bots_username_lower` does. */
const lowerUsername = sql<string>`lower(username)`;

function lockTokenCopyQuery(ownerId: string, botId: string) {
  return db
    .selectFrom('bots')
    .select((eb) => [
      'review_status',
      'one_time_token_ciphertext',
      eb('one_time_token_expires_at', '<=', sql<Date>`now()`).as('expired'),
    ])
    .where('id', '=', botId)
    .where('owner_id', '=', ownerId)
    .forUpdate();
}

/** The sealed one-time token of a bot, locked for its single read. */
export type TokenCopy = RowOf<ReturnType<typeof lockTokenCopyQuery>>;

/** Every statement on `bots`; a bot's delivery settings are @app/bot-delivery's (DeliveryDomain). */
@Injectable()
export class BotsStore {
  constructor(private readonly database: Database) {}

  /** A new application: pending review, disabled, no token yet. */
  async insertApplication(on: SqlTarget, application: BotApplication): Promise<void> {
    await execute(
      on,
      db.insertInto('bots').values({
        id: application.id,
        owner_id: application.ownerId,
        name: application.name,
        username: application.username,
        description: application.description,
        short_description: null,
        avatar: application.avatar,
        scopes: application.scopes,
        review_status: 'pending',
        rejection_reason: null,
        reviewed_by: null,
        reviewed_at: null,
        status: 'disabled',
        system_user_id: null,
        supports_inline_queries: false,
        friend_request_mode: 'auto_accept',
        rate_limits: {},
        virtual_members_enabled: false,
        token_hash: null,
        token_prefix: null,
        token_issued_at: null,
        token_revoked_at: null,
        one_time_token_ciphertext: null,
        one_time_token_expires_at: null,
      }),
    );
  }

  /** Whether another bot, or the system user of another bot, holds the username (a rejected application does not). */
  async usernameTaken(on: SqlTarget, username: string, botId: string, systemUserId: string): Promise<boolean> {
    const taken = await executeAll(
      on,
      db
        .selectFrom('bots')
        .select(sql.lit(1).as('taken'))
        .where(lowerUsername, '=', sql<string>`lower(${username})`)
        .where('review_status', '<>', sql.lit('rejected'))
        .where('id', '<>', botId)
        .unionAll(
          db
            .selectFrom('users')
            .select(sql.lit(1).as('taken'))
            .where(lowerUsername, '=', sql<string>`lower(${username})`)
            .where('id', '<>', systemUserId),
        )
        .limit(sql.lit(1)),
    );
    return taken.length > 0;
  }

  /** Which of these usernames (compared in lower case) another bot or its system user holds; answered in lower case. */
  async takenUsernames(on: SqlTarget, usernames: string[], botId: string): Promise<Set<string>> {
    const lowered = usernames.map((username) => username.toLowerCase());
    const rows = await executeAll(
      on,
      db
        .selectFrom('bots')
        .select(lowerUsername.as('username'))
        .where((eb) => eb(lowerUsername, '=', eb.fn.any(eb.val(lowered))))
        .where('review_status', '<>', sql.lit('rejected'))
        .where('id', '<>', botId)
        .union(
          db
            .selectFrom('users')
            .select(lowerUsername.as('username'))
            .where((eb) => eb(lowerUsername, '=', eb.fn.any(eb.val(lowered))))
            .where('id', '<>', systemUserIdFor(botId)),
        ),
    );
    return new Set(rows.map((row) => row.username));
  }

  /**
   * Gives the bot this username unless the unique index says another bot has it (one that committed, or
   * one still being approved, which this statement waits for). A savepoint keeps the surrounding
   * transaction usable after a refusal, so the caller can try the next name.
   */
  async claimUsername(on: SqlTarget, botId: string, username: string): Promise<boolean> {
    await execute(on, rawStatement(sql`SAVEPOINT claim_username`));
    try {
      await execute(
        on,
        db
          .updateTable('bots')
          .set({ username, updated_at: sql`now()` })
          .where('id', '=', botId),
      );
    } catch (error) {
      if (!isUniqueViolation(error, 'bots_username_lower')) throw error;
      await execute(on, rawStatement(sql`ROLLBACK TO SAVEPOINT claim_username`));
      return false;
    }
    await execute(on, rawStatement(sql`RELEASE SAVEPOINT claim_username`));
    return true;
  }

  /** The owner's bots, newest first, and how many the owner has. */
  async pageOfOwner(ownerId: string, skip: number, take: number): Promise<[Bot[], number]> {
    const page = await executeAll(
      this.database,
      selectBots()
        .where('b.owner_id', '=', ownerId)
        .orderBy('b.created_at', 'desc')
        .orderBy('b.id', 'asc')
        .limit(take)
        .offset(skip),
    );
    const counted = await executeFirst(
      this.database,
      db
        .selectFrom('bots')
        .select((eb) => eb.fn.countAll<string>().as('total'))
        .where('owner_id', '=', ownerId),
    );
    return [page, Number(counted!.total)];
  }

  /** The review queue (or every bot), oldest first, and how many it holds. */
  async pageForReview(reviewStatus: ReviewStatus | undefined, skip: number, take: number): Promise<[Bot[], number]> {
    const page = await executeAll(
      this.database,
      selectBots()
        .$if(reviewStatus !== undefined, (qb) => qb.where('b.review_status', '=', reviewStatus!))
        .orderBy('b.created_at', 'asc')
        .orderBy('b.id', 'asc')
        .limit(take)
        .offset(skip),
    );
    const counted = await executeFirst(
      this.database,
      db
        .selectFrom('bots')
        .select((eb) => eb.fn.countAll<string>().as('total'))
        .$if(reviewStatus !== undefined, (qb) => qb.where('review_status', '=', reviewStatus!)),
    );
    return [page, Number(counted!.total)];
  }

  async findOwned(ownerId: string, botId: string): Promise<Bot | null> {
    return (
      (await executeFirst(this.database, selectBots().where('b.id', '=', botId).where('b.owner_id', '=', ownerId))) ??
      null
    );
  }

  async find(on: SqlTarget, botId: string): Promise<Bot | null> {
    return (await executeFirst(on, selectBots().where('b.id', '=', botId))) ?? null;
  }

  /** A bot known to exist (it authenticated, or this transaction just changed it). */
  async get(botId: string, on: SqlTarget = this.database): Promise<Bot> {
    const bot = await executeFirst(on, selectBots().where('b.id', '=', botId));
    if (!bot) throw new Error(`bot ${botId} does not exist`);
    return bot;
  }

  /** The bot locked for an update in this transaction; `ownerId` confines it to the owner's bots. */
  async lock(on: SqlTarget, botId: string, ownerId?: string): Promise<Bot | null> {
    const bot = await executeFirst(
      on,
      selectBots()
        .where('b.id', '=', botId)
        .$if(ownerId !== undefined, (qb) => qb.where('b.owner_id', '=', ownerId!))
        .forUpdate('b'),
    );
    return bot ?? null;
  }

  /** FOR SHARE: a concurrent change of the bot waits until this transaction ends. */
  async lockShared(on: SqlTarget, botId: string): Promise<Bot | null> {
    return (await executeFirst(on, selectBots().where('b.id', '=', botId).forShare('b'))) ?? null;
  }

  /**
   * Writes the changed columns and moves `updated_at`; no statement when nothing changed. Returns the
   * new `updated_at` (undefined when nothing was written).
   */
  async update(on: SqlTarget, botId: string, changes: BotChanges): Promise<Date | undefined> {
    if (Object.keys(changes).length === 0) return undefined;
    const { rate_limits: rateLimits, ...columns } = changes;
    const row = await executeFirst(
      on,
      db
        .updateTable('bots')
        .set({
          ...columns,
          ...(rateLimits === undefined ? {} : { rate_limits: { ...rateLimits } as JsonObject }),
          updated_at: sql`now()`,
        })
        .where('id', '=', botId)
        .returning('updated_at'),
    );
    return row?.updated_at;
  }

  /** The bot's review state; undefined when there is no such bot (of this owner, when given). */
  reviewOf(on: SqlTarget, botId: string, ownerId?: string): Promise<{ review_status: ReviewStatus } | undefined> {
    return executeFirst(
      on,
      db
        .selectFrom('bots')
        .select('review_status')
        .where('id', '=', botId)
        .$if(ownerId !== undefined, (qb) => qb.where('owner_id', '=', ownerId!)),
    );
  }

  /**
   * pending → approved and enabled (still polling, as every bot starts). The condition lets exactly one of two concurrent
   * approvals through; undefined when the bot was not pending.
   */
  approvePending(
    on: SqlTarget,
    botId: string,
    staffId: string,
  ): Promise<{ name: string; username: string | null } | undefined> {
    return executeFirst(
      on,
      db
        .updateTable('bots')
        .set({
          review_status: sql.lit('approved'),
          status: sql.lit('enabled'),
          reviewed_by: staffId,
          reviewed_at: sql`now()`,
          updated_at: sql`now()`,
        })
        .where('id', '=', botId)
        .where('review_status', '=', sql.lit('pending'))
        .returning(['name', 'username']),
    );
  }

  async linkSystemUser(on: SqlTarget, botId: string, systemUserId: string): Promise<void> {
    await execute(on, db.updateTable('bots').set({ system_user_id: systemUserId }).where('id', '=', botId));
  }

  /** pending → rejected; false when the bot was not pending. */
  async rejectPending(on: SqlTarget, botId: string, reason: string, staffId: string): Promise<boolean> {
    const moved = await executeAll(
      on,
      db
        .updateTable('bots')
        .set({
          review_status: sql.lit('rejected'),
          rejection_reason: reason,
          reviewed_by: staffId,
          reviewed_at: sql`now()`,
          updated_at: sql`now()`,
        })
        .where('id', '=', botId)
        .where('review_status', '=', sql.lit('pending'))
        .returning('id'),
    );
    return moved.length > 0;
  }

  /** The bot whose current, unrevoked token has this SHA-256 hash, with the hash (never selected otherwise). */
  async findByTokenHash(hash: string): Promise<BotWithTokenHash | null> {
    return (await BOT_BY_TOKEN_HASH.first(this.database, { hash })) ?? null;
  }

  /**
   * The first `length` hex characters of every current token's hash, concatenated: one string, so that
   * even a large table comes back as one value rather than a row per bot.
   */
  async currentTokenHashPrefixes(length: number): Promise<string> {
    const row = await executeFirst(
      this.database,
      db
        .selectFrom('bots')
        .select(sql<string>`coalesce(string_agg(left(token_hash, ${length}), ''), '')`.as('prefixes'))
        .where('token_hash', 'is not', null)
        .where('token_revoked_at', 'is', null),
    );
    return row!.prefixes;
  }

  /** At approval: the token's hash, and its sealed copy for the developer's one read within `ttlMs`. */
  async issueToken(
    on: SqlTarget,
    botId: string,
    token: { hash: string; prefix: string; sealed: string; ttlMs: number },
  ): Promise<void> {
    await execute(
      on,
      db
        .updateTable('bots')
        .set({
          token_hash: token.hash,
          token_prefix: token.prefix,
          token_issued_at: sql`now()`,
          token_revoked_at: null,
          one_time_token_ciphertext: token.sealed,
          one_time_token_expires_at: sql`now() + ${token.ttlMs} * interval '1 millisecond'`,
        })
        .where('id', '=', botId),
    );
  }

  /** The row lock serialises parallel reads of the one-time token. */
  lockTokenCopy(on: SqlTarget, ownerId: string, botId: string): Promise<TokenCopy | undefined> {
    return executeFirst(on, lockTokenCopyQuery(ownerId, botId));
  }

  async destroyTokenCopy(on: SqlTarget, botId: string): Promise<void> {
    await execute(
      on,
      db
        .updateTable('bots')
        .set({ one_time_token_ciphertext: null, one_time_token_expires_at: null })
        .where('id', '=', botId),
    );
  }

  /** A new token in place of the old one, for an approved bot of the owner; false when there is none. */
  async replaceToken(
    on: SqlTarget,
    ownerId: string,
    botId: string,
    token: { hash: string; prefix: string },
  ): Promise<boolean> {
    const replaced = await executeAll(
      on,
      db
        .updateTable('bots')
        .set({
          token_hash: token.hash,
          token_prefix: token.prefix,
          token_issued_at: sql`now()`,
          token_revoked_at: null,
          one_time_token_ciphertext: null,
          one_time_token_expires_at: null,
          updated_at: sql`now()`,
        })
        .where('id', '=', botId)
        .where('owner_id', '=', ownerId)
        .where('review_status', '=', sql.lit('approved'))
        .returning('id'),
    );
    return replaced.length > 0;
  }

  /** Stops the current token of an approved bot of the owner; false when there is none. */
  async revokeToken(on: SqlTarget, ownerId: string, botId: string): Promise<boolean> {
    const revoked = await executeAll(
      on,
      db
        .updateTable('bots')
        .set({
          token_revoked_at: sql`COALESCE(token_revoked_at, now())`,
          one_time_token_ciphertext: null,
          one_time_token_expires_at: null,
          updated_at: sql`now()`,
        })
        .where('id', '=', botId)
        .where('owner_id', '=', ownerId)
        .where('review_status', '=', sql.lit('approved'))
        .returning('id'),
    );
    return revoked.length > 0;
  }

  /** Sealed copies nobody read in time; returns how many were destroyed. */
  async destroyExpiredTokenCopies(): Promise<number> {
    const result = await execute(
      this.database,
      db
        .updateTable('bots')
        .set({ one_time_token_ciphertext: null, one_time_token_expires_at: null })
        .where('one_time_token_expires_at', '<=', sql<Date>`now()`),
    );
    return result.rowCount ?? 0;
  }

  async setFriendRequestMode(on: SqlTarget, botId: string, mode: FriendRequestMode): Promise<void> {
    await execute(
      on,
      db
        .updateTable('bots')
        .set({ friend_request_mode: mode, updated_at: sql`now()` })
        .where('id', '=', botId),
    );
  }

  /** `lock` takes the row FOR SHARE, so the mode cannot change before this transaction ends. */
  async friendRequestModeOf(on: SqlTarget, botId: string, lock = false): Promise<FriendRequestMode | undefined> {
    const row = await executeFirst(
      on,
      db
        .selectFrom('bots')
        .select('friend_request_mode')
        .where('id', '=', botId)
        .$if(lock, (qb) => qb.forShare()),
    );
    return row?.friend_request_mode;
  }

  async setDescription(botId: string, text: string | null): Promise<void> {
    await execute(
      this.database,
      db
        .updateTable('bots')
        .set({ description: text, updated_at: sql`now()` })
        .where('id', '=', botId),
    );
  }

  async setShortDescription(botId: string, text: string | null): Promise<void> {
    await execute(
      this.database,
      db
        .updateTable('bots')
        .set({ short_description: text, updated_at: sql`now()` })
        .where('id', '=', botId),
    );
  }

  /**
   * The available bot with this @username (any case), for inline queries; null when there is none.
   * "Available" is @app/bot-delivery's one rule (botAvailable): approved and enabled.
   */
  async availableByUsername(on: SqlTarget, username: string): Promise<Bot | null> {
    const bot = await executeFirst(
      on,
      selectBots()
        .where(sql<string>`lower(b.username)`, '=', sql<string>`lower(${username})`)
        .where(botAvailable('b')),
    );
    return bot ?? null;
  }

  /** Whether staff switched virtual members on for the bot, read FOR SHARE so a concurrent switch waits. */
  async virtualMembersEnabled(on: SqlTarget, botId: string): Promise<boolean> {
    const row = await executeFirst(
      on,
      db.selectFrom('bots').select('virtual_members_enabled').where('id', '=', botId).forShare(),
    );
    return row?.virtual_members_enabled === true;
  }
}
