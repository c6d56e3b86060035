import { db, prepared, type BotDeliverySettings } from '@app/bot-schema';
import { Database, execute, executeAll, executeFirst, RowOf, SqlTarget } from '@app/platform';
import { AliasedExpression, Selectable, sql } from 'kysely';

/** What setWebhook stores; `allowedUpdates` undefined keeps the bot's list. */
export interface WebhookSettings {
  url: string;
  sealedSecret: string;
  /** The secret a rotation replaces and when it stops being signed with; none when left out. */
  previousSealedSecret?: string | null;
  previousSecretExpiresAt?: Date | null;
  allowedIps: string[] | null;
  maxConnections: number;
  allowedUpdates?: string[] | null;
  /** The body the receiver gets; native unless set through the Telegram-compatible face. */
  format?: Selectable<BotDeliverySettings>['webhook_format'];
}

/**
 * Per bot, what a batch of attempts showed: the latest error of the batch, its 410 Gone answers, whether
 * another answer came, the largest Retry-After and whether a delivery succeeded.
 */
export interface BotOutcome {
  bot_id: string;
  error: string | null;
  gone: string;
  other_answer: boolean;
  retry_after_ms: number | null;
  succeeded: boolean;
}

/**
 * The bot side of recording a batch of attempts (RECORD_ATTEMPTS), run in that statement: `perBot`
 * holds each bot's BotOutcome, `recovered` the bots whose receiver recovered with dead letters
 * waiting. The bot keeps its last error and the latest Retry-After (as the earliest time of its next
 * attempt); any answer but 410 ends a run of 410 Gone answers, and a run of `pauseAfterGone` pauses
 * the bot's deliveries until setWebhook.
 */
export function recordBotOutcomes(
  perBot: AliasedExpression<BotOutcome, 'p'>,
  recovered: AliasedExpression<{ bot_id: string }, 'r'>,
  pauseAfterGone: number,
) {
  const paused = sql<boolean>`NOT p.other_answer AND s.webhook_gone_streak + p.gone >= ${pauseAfterGone}`;
  return db
    .updateTable('bot_delivery_settings as s')
    .from(perBot)
    .leftJoin(recovered, 'r.bot_id', 'p.bot_id')
    .set({
      webhook_last_error_at: sql<Date | null>`CASE WHEN p.error IS NULL THEN s.webhook_last_error_at ELSE now() END`,
      webhook_last_error_message: sql<string | null>`CASE
              WHEN ${paused} THEN
                format('webhook paused: %s consecutive deliveries were answered 410 Gone; set the webhook again to resume',
                       s.webhook_gone_streak + p.gone)
              WHEN p.error IS NULL THEN s.webhook_last_error_message
              ELSE p.error END`,
      webhook_gone_streak: sql<number>`CASE WHEN p.other_answer THEN 0 ELSE s.webhook_gone_streak + p.gone END`,
      webhook_paused_at: sql<Date | null>`CASE WHEN ${paused} THEN coalesce(s.webhook_paused_at, now()) ELSE s.webhook_paused_at END`,
      webhook_not_before: sql<Date | null>`CASE WHEN p.retry_after_ms IS NULL THEN s.webhook_not_before
              ELSE greatest(s.webhook_not_before, now() + make_interval(secs => p.retry_after_ms::double precision / 1000))
              END`,
      webhook_recovered_at: sql<Date | null>`CASE WHEN r.bot_id IS NULL THEN s.webhook_recovered_at ELSE now() END`,
    })
    .whereRef('s.bot_id', '=', 'p.bot_id')
    .where('s.delivery_mode', '=', sql.lit('webhook'))
    .where(
      sql<boolean>`(p.error IS NOT NULL OR p.gone > 0 OR p.retry_after_ms IS NOT NULL
             OR (p.other_answer AND s.webhook_gone_streak > 0) OR r.bot_id IS NOT NULL)`,
    );
}

const now = sql<Date>`now()`;

/** The previous secret's expiry while its rotation overlap lasts, else null. */
const previousSecretExpiresAt = sql<Date | null>`CASE WHEN webhook_previous_secret_expires_at > now() THEN webhook_previous_secret_expires_at END`;

/** The bot's sealed secrets, locked until the caller's setWebhook commits (two rotations cannot interleave). */
const webhookSecretsForUpdate = (botId: string) =>
  db
    .selectFrom('bot_delivery_settings')
    .select([
      'webhook_secret_ciphertext',
      sql<
        string | null
      >`CASE WHEN webhook_previous_secret_expires_at > now() THEN webhook_previous_secret_ciphertext END`.as(
        'webhook_previous_secret_ciphertext',
      ),
      previousSecretExpiresAt.as('webhook_previous_secret_expires_at'),
    ])
    .where('bot_id', '=', botId)
    .forUpdate();

/** The bot's sealed secrets as a rotation needs them (the previous one only while its overlap lasts). */
export type WebhookSecretsRow = RowOf<ReturnType<typeof webhookSecretsForUpdate>>;

/**
 * A bot's delivery settings and last error, as getWebhookInfo reads them: the previous secret's expiry
 * only while the overlap of a rotation lasts; `webhook_paused_at` set when consecutive 410 Gone answers
 * paused the deliveries, until the next setWebhook; `auto_redeliver_dead_letters` the self-healing switch.
 */
const webhookInfo = (botId: string) =>
  db
    .selectFrom('bot_delivery_settings')
    .select([
      'delivery_mode',
      'webhook_url',
      'webhook_allowed_ips',
      'webhook_max_connections',
      'webhook_last_error_at',
      'webhook_last_error_message',
      'allowed_updates',
      previousSecretExpiresAt.as('webhook_previous_secret_expires_at'),
      'webhook_paused_at',
      'auto_redeliver_dead_letters',
    ])
    .where('bot_id', '=', botId);

/** A bot's delivery settings and last error, as getWebhookInfo reads them. */
export type WebhookSettingsRow = RowOf<ReturnType<typeof webhookInfo>>;

/** The delivery mode of one of the owner's bots; no row when the bot is not theirs. */
const DELIVERY_MODE_OF_OWNED = (ownerId: string, botId: string) =>
  db
    .selectFrom('bot_delivery_settings as s')
    .innerJoin('bots as b', 'b.id', 's.bot_id')
    .select('s.delivery_mode')
    .where('s.bot_id', '=', botId)
    .where('b.owner_id', '=', ownerId);

/** Asked every redrive step, nearly always answered "no": one index probe, no transaction, no parse. */
const ANY_RECOVERED = prepared('bot_delivery_settings_any_recovered', (db, _p: Record<string, never>) =>
  db.selectNoFrom((eb) =>
    eb
      .exists(
        eb
          .selectFrom('bot_delivery_settings')
          .select(sql.lit(1).as('one'))
          .where('webhook_recovered_at', 'is not', null),
      )
      .$castTo<boolean>()
      .as('any'),
  ),
);

/**
 * A bot's delivery settings (`bot_delivery_settings`, one row per bot): how its Updates reach it
 * (polling or a webhook, and which types), its webhook's configuration and secrets, the state its
 * receiver's answers leave (last error, 410 pause, Retry-After, recovery) and the self-healing
 * switch. Every statement on the table is here; both apps reach it through DeliveryDomain.
 */
export class BotDeliverySettingsStore {
  constructor(private readonly database: Database) {}

  /** A new bot: polling, every Update type, no webhook; in the transaction that creates the bot. */
  async create(on: SqlTarget, botId: string): Promise<void> {
    await execute(on, db.insertInto('bot_delivery_settings').values({ bot_id: botId }));
  }

  /**
   * setWebhook: the bot's delivery settings, and `allowed_updates` when the call lists them. Read by
   * the dispatcher for every delivery, so a change applies to the next attempt. The previous secret of
   * a rotation is decided by the caller; a 410 pause and a Retry-After end here.
   */
  async setWebhook(on: SqlTarget, botId: string, settings: WebhookSettings): Promise<void> {
    await execute(
      on,
      db
        .updateTable('bot_delivery_settings')
        .set({
          delivery_mode: sql.lit('webhook'),
          webhook_url: settings.url,
          webhook_secret_ciphertext: settings.sealedSecret,
          webhook_allowed_ips: settings.allowedIps,
          webhook_max_connections: settings.maxConnections,
          ...(settings.allowedUpdates !== undefined && {
            allowed_updates: sql<string[] | null>`${settings.allowedUpdates}::text[]`,
          }),
          webhook_previous_secret_ciphertext: settings.previousSealedSecret ?? null,
          webhook_previous_secret_expires_at: settings.previousSealedSecret
            ? (settings.previousSecretExpiresAt ?? null)
            : null,
          webhook_not_before: null,
          webhook_gone_streak: 0,
          webhook_paused_at: null,
          webhook_format: settings.format ?? 'native',
          updated_at: now,
        })
        .where('bot_id', '=', botId),
    );
  }

  /** Locks the bot's settings until the transaction ends; undefined when there is no such bot. */
  webhookSecretsForUpdate(on: SqlTarget, botId: string): Promise<WebhookSecretsRow | undefined> {
    return executeFirst(on, webhookSecretsForUpdate(botId));
  }

  /** deleteWebhook: back to polling, the settings and the last error forgotten. */
  async clearWebhook(on: SqlTarget, botId: string, maxConnections: number): Promise<void> {
    await execute(
      on,
      db
        .updateTable('bot_delivery_settings')
        .set({
          delivery_mode: sql.lit('polling'),
          webhook_url: null,
          webhook_secret_ciphertext: null,
          webhook_allowed_ips: null,
          webhook_max_connections: maxConnections,
          webhook_last_error_at: null,
          webhook_last_error_message: null,
          webhook_previous_secret_ciphertext: null,
          webhook_previous_secret_expires_at: null,
          webhook_not_before: null,
          webhook_gone_streak: 0,
          webhook_paused_at: null,
          webhook_recovered_at: null,
          webhook_format: sql.lit('native'),
          updated_at: now,
        })
        .where('bot_id', '=', botId),
    );
  }

  webhookSettings(botId: string): Promise<WebhookSettingsRow | undefined> {
    return executeFirst(this.database, webhookInfo(botId));
  }

  /** Undefined when the bot is not the owner's. `lock` keeps a concurrent mode switch out until commit. */
  async deliveryModeOfOwned(on: SqlTarget, ownerId: string, botId: string, lock = false): Promise<string | undefined> {
    const ofOwned = DELIVERY_MODE_OF_OWNED(ownerId, botId);
    const row = await executeFirst(on, lock ? ofOwned.forShare('s') : ofOwned);
    return row?.delivery_mode;
  }

  /** getUpdates' allowed_updates (null: every default type); written only when it differs. */
  async setAllowedUpdates(botId: string, allowed: string[] | null): Promise<void> {
    await execute(
      this.database,
      db
        .updateTable('bot_delivery_settings')
        .set({ allowed_updates: allowed, updated_at: now })
        .where('bot_id', '=', botId)
        .where('allowed_updates', 'is distinct from', sql<string[] | null>`${allowed}::text[]`),
    );
  }

  async setAutoRedeliver(on: SqlTarget, botId: string, enabled: boolean): Promise<void> {
    await execute(
      on,
      db
        .updateTable('bot_delivery_settings')
        .set({ auto_redeliver_dead_letters: enabled, updated_at: now })
        .where('bot_id', '=', botId)
        .where('auto_redeliver_dead_letters', 'is distinct from', enabled),
    );
  }

  /** Whether any bot is marked recovered, without a transaction or a lock. */
  async anyRecovered(): Promise<boolean> {
    const row = await ANY_RECOVERED.first(this.database, {});
    return row!.any;
  }

  /**
   * Up to `limit` bots the dispatcher marked recovered (see recordBotOutcomes) with dead letters
   * waiting, oldest mark first, locked until the caller commits.
   */
  async recoveredBots(on: SqlTarget, limit: number): Promise<string[]> {
    const rows = await executeAll(
      on,
      db
        .selectFrom('bot_delivery_settings')
        .select('bot_id')
        .where('webhook_recovered_at', 'is not', null)
        .orderBy('webhook_recovered_at')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    );
    return rows.map((row) => row.bot_id);
  }

  /** The recovery of these bots is handled (a job started, or nothing was left to take). */
  async clearRecovered(on: SqlTarget, botIds: string[]): Promise<void> {
    if (botIds.length === 0) return;
    await execute(
      on,
      db
        .updateTable('bot_delivery_settings')
        .set({ webhook_recovered_at: null })
        .where('bot_id', '=', (eb) => eb.fn.any(sql<string[]>`${botIds}::varchar[]`)),
    );
  }
}
