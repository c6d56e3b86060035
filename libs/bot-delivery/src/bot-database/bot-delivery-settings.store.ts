import { DataSource } from 'typeorm';
import { namedStatement, runNamed, runStatement, SqlTarget } from '@app/platform';
import type { Placeholders } from './composed-statement';
import type { WebhookFormat } from './due-delivery';

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
  format?: WebhookFormat;
}

/** A bot's delivery settings and last error, as getWebhookInfo reads them. */
export interface WebhookSettingsRow {
  delivery_mode: string;
  webhook_url: string | null;
  webhook_allowed_ips: string[] | null;
  webhook_max_connections: number;
  webhook_last_error_at: Date | null;
  webhook_last_error_message: string | null;
  allowed_updates: string[] | null;
  /** Only while the overlap of a rotation lasts. */
  webhook_previous_secret_expires_at: Date | null;
  /** Set when consecutive 410 Gone answers paused the deliveries, until the next setWebhook. */
  webhook_paused_at: Date | null;
  /** Self-healing dead letters: redelivered automatically once the receiver answers 2xx again. */
  auto_redeliver_dead_letters: boolean;
}

/** The bot's sealed secrets as a rotation needs them (the previous one only while its overlap lasts). */
export interface WebhookSecretsRow {
  webhook_secret_ciphertext: string | null;
  webhook_previous_secret_ciphertext: string | null;
  webhook_previous_secret_expires_at: Date | null;
}

/** The settings a bot's own row shows (bot-api's `Bot`), read with it. */
export type BotRowSetting = 'delivery_mode' | 'allowed_updates' | 'auto_redeliver_dead_letters' | 'updated_at';

/** SQL expression: one setting of the `bots` row named `bot`, for the statement that loads the row. */
export function botDeliverySettingSql(bot: string, setting: BotRowSetting): string {
  return `SELECT s.${setting} FROM bot_delivery_settings s WHERE s.bot_id = ${bot}.id`;
}

/**
 * The bot side of recording a batch of attempts (RECORD_ATTEMPTS), run in that statement: `perBot`
 * has per bot the latest error of the batch, its 410 Gone answers, whether another answer came, the
 * largest Retry-After and whether a delivery succeeded; `recovered` lists the bots whose receiver
 * recovered with dead letters waiting. The bot keeps its last error and the latest Retry-After (as the
 * earliest time of its next attempt); any answer but 410 ends a run of 410 Gone answers, and a run of
 * `pause_after_gone` pauses the bot's deliveries until setWebhook.
 */
export function recordBotOutcomesSql(
  perBot: string,
  recovered: string,
  params: Placeholders<{ pause_after_gone: number }>,
): string {
  return `UPDATE bot_delivery_settings s
        SET webhook_last_error_at = CASE WHEN p.error IS NULL THEN s.webhook_last_error_at ELSE now() END,
            webhook_last_error_message = CASE
              WHEN NOT p.other_answer AND s.webhook_gone_streak + p.gone >= ${params.pause_after_gone} THEN
                format('webhook paused: %s consecutive deliveries were answered 410 Gone; set the webhook again to resume',
                       s.webhook_gone_streak + p.gone)
              WHEN p.error IS NULL THEN s.webhook_last_error_message
              ELSE p.error END,
            webhook_gone_streak = CASE WHEN p.other_answer THEN 0 ELSE s.webhook_gone_streak + p.gone END,
            webhook_paused_at = CASE WHEN NOT p.other_answer AND s.webhook_gone_streak + p.gone >= ${params.pause_after_gone}
                                     THEN coalesce(s.webhook_paused_at, now()) ELSE s.webhook_paused_at END,
            webhook_not_before = CASE WHEN p.retry_after_ms IS NULL THEN s.webhook_not_before
              ELSE greatest(s.webhook_not_before, now() + make_interval(secs => p.retry_after_ms::double precision / 1000))
              END,
            webhook_recovered_at = CASE WHEN r.bot_id IS NULL THEN s.webhook_recovered_at ELSE now() END
       FROM ${perBot} p LEFT JOIN ${recovered} r ON r.bot_id = p.bot_id
      WHERE s.bot_id = p.bot_id AND s.delivery_mode = 'webhook'
        AND (p.error IS NOT NULL OR p.gone > 0 OR p.retry_after_ms IS NOT NULL
             OR (p.other_answer AND s.webhook_gone_streak > 0) OR r.bot_id IS NOT NULL)`;
}

/** A new bot: polling, every Update type, no webhook. */
const CREATE = `INSERT INTO bot_delivery_settings (bot_id) VALUES ($1)`;

/**
 * setWebhook: the bot's delivery settings, and `allowed_updates` when the call lists them ($6). Read
 * by the dispatcher for every delivery, so a change applies to the next attempt. The previous secret
 * of a rotation ($8, until $9) is decided by the caller; a 410 pause and a Retry-After end here.
 */
const SET_WEBHOOK = `UPDATE bot_delivery_settings SET delivery_mode = 'webhook', webhook_url = $2,
        webhook_secret_ciphertext = $3, webhook_allowed_ips = $4, webhook_max_connections = $5,
        allowed_updates = CASE WHEN $6::boolean THEN $7::text[] ELSE allowed_updates END,
        webhook_previous_secret_ciphertext = $8, webhook_previous_secret_expires_at = $9,
        webhook_not_before = NULL, webhook_gone_streak = 0, webhook_paused_at = NULL,
        webhook_format = $10, updated_at = now()
  WHERE bot_id = $1`;

/** The bot's sealed secrets, locked until the caller's setWebhook commits (two rotations cannot interleave). */
const WEBHOOK_SECRETS_FOR_UPDATE = `SELECT webhook_secret_ciphertext,
        CASE WHEN webhook_previous_secret_expires_at > now() THEN webhook_previous_secret_ciphertext END
          AS webhook_previous_secret_ciphertext,
        CASE WHEN webhook_previous_secret_expires_at > now() THEN webhook_previous_secret_expires_at END
          AS webhook_previous_secret_expires_at
   FROM bot_delivery_settings WHERE bot_id = $1 FOR UPDATE`;

/** deleteWebhook: back to polling, the settings and the last error forgotten. */
const CLEAR_WEBHOOK = `UPDATE bot_delivery_settings SET delivery_mode = 'polling', webhook_url = NULL,
        webhook_secret_ciphertext = NULL, webhook_allowed_ips = NULL, webhook_max_connections = $2,
        webhook_last_error_at = NULL, webhook_last_error_message = NULL,
        webhook_previous_secret_ciphertext = NULL, webhook_previous_secret_expires_at = NULL,
        webhook_not_before = NULL, webhook_gone_streak = 0, webhook_paused_at = NULL, webhook_recovered_at = NULL,
        webhook_format = 'native', updated_at = now()
  WHERE bot_id = $1`;

const WEBHOOK_INFO = `SELECT delivery_mode, webhook_url, webhook_allowed_ips, webhook_max_connections,
        webhook_last_error_at, webhook_last_error_message, allowed_updates,
        CASE WHEN webhook_previous_secret_expires_at > now() THEN webhook_previous_secret_expires_at END
          AS webhook_previous_secret_expires_at,
        webhook_paused_at, auto_redeliver_dead_letters
   FROM bot_delivery_settings WHERE bot_id = $1`;

/** The delivery mode of one of the owner's bots; no row when the bot is not theirs. */
const DELIVERY_MODE_OF_OWNED = `SELECT s.delivery_mode
   FROM bot_delivery_settings s JOIN bots b ON b.id = s.bot_id
  WHERE s.bot_id = $1 AND b.owner_id = $2`;

/** getUpdates' allowed_updates; written only when it differs. */
const SET_ALLOWED_UPDATES = `UPDATE bot_delivery_settings SET allowed_updates = $2, updated_at = now()
  WHERE bot_id = $1 AND allowed_updates IS DISTINCT FROM $2::text[]`;

const SET_AUTO_REDELIVER = `UPDATE bot_delivery_settings SET auto_redeliver_dead_letters = $2, updated_at = now()
  WHERE bot_id = $1 AND auto_redeliver_dead_letters IS DISTINCT FROM $2`;

/** Asked every redrive step, nearly always answered "no": one index probe, no transaction, no parse. */
const ANY_RECOVERED = namedStatement(
  'bot_delivery_settings_any_recovered',
  'SELECT EXISTS (SELECT 1 FROM bot_delivery_settings WHERE webhook_recovered_at IS NOT NULL) AS any',
);

/** Bots the dispatcher marked recovered (see recordBotOutcomesSql), oldest mark first, locked until the caller commits. */
const RECOVERED_BOTS = `SELECT bot_id FROM bot_delivery_settings WHERE webhook_recovered_at IS NOT NULL
    ORDER BY webhook_recovered_at LIMIT $1 FOR UPDATE SKIP LOCKED`;

/** The recovery of these bots is handled (a job started, or nothing was left to take). */
const CLEAR_RECOVERED = `UPDATE bot_delivery_settings SET webhook_recovered_at = NULL WHERE bot_id = ANY($1::varchar[])`;

/**
 * A bot's delivery settings (`bot_delivery_settings`, one row per bot): how its Updates reach it
 * (polling or a webhook, and which types), its webhook's configuration and secrets, the state its
 * receiver's answers leave (last error, 410 pause, Retry-After, recovery) and the self-healing
 * switch. Every statement on the table is here; both apps reach it through DeliveryDomain.
 */
export class BotDeliverySettingsStore {
  constructor(private readonly dataSource: DataSource) {}

  /** In the transaction that creates the bot. */
  async create(on: SqlTarget, botId: string): Promise<void> {
    await runStatement(on, CREATE, [botId]);
  }

  async setWebhook(on: SqlTarget, botId: string, settings: WebhookSettings): Promise<void> {
    await runStatement(on, SET_WEBHOOK, [
      botId,
      settings.url,
      settings.sealedSecret,
      settings.allowedIps,
      settings.maxConnections,
      settings.allowedUpdates !== undefined,
      settings.allowedUpdates ?? null,
      settings.previousSealedSecret ?? null,
      settings.previousSealedSecret ? (settings.previousSecretExpiresAt ?? null) : null,
      settings.format ?? 'native',
    ]);
  }

  /** Locks the bot's settings until the transaction ends; undefined when there is no such bot. */
  async webhookSecretsForUpdate(on: SqlTarget, botId: string): Promise<WebhookSecretsRow | undefined> {
    const { rows } = await runStatement<WebhookSecretsRow>(on, WEBHOOK_SECRETS_FOR_UPDATE, [botId]);
    return rows[0];
  }

  async clearWebhook(on: SqlTarget, botId: string, maxConnections: number): Promise<void> {
    await runStatement(on, CLEAR_WEBHOOK, [botId, maxConnections]);
  }

  async webhookSettings(botId: string): Promise<WebhookSettingsRow | undefined> {
    const rows: WebhookSettingsRow[] = await this.dataSource.query(WEBHOOK_INFO, [botId]);
    return rows[0];
  }

  /** Undefined when the bot is not the owner's. `lock` keeps a concurrent mode switch out until commit. */
  async deliveryModeOfOwned(on: SqlTarget, ownerId: string, botId: string, lock = false): Promise<string | undefined> {
    const { rows } = await runStatement<{ delivery_mode: string }>(
      on,
      `${DELIVERY_MODE_OF_OWNED}${lock ? ' FOR SHARE OF s' : ''}`,
      [botId, ownerId],
    );
    return rows[0]?.delivery_mode;
  }

  /** Null means every default type. */
  async setAllowedUpdates(botId: string, allowed: string[] | null): Promise<void> {
    await this.dataSource.query(SET_ALLOWED_UPDATES, [botId, allowed]);
  }

  async setAutoRedeliver(on: SqlTarget, botId: string, enabled: boolean): Promise<void> {
    await runStatement(on, SET_AUTO_REDELIVER, [botId, enabled]);
  }

  /** Whether any bot is marked recovered, without a transaction or a lock. */
  async anyRecovered(): Promise<boolean> {
    const { rows } = await runNamed<{ any: boolean }>(this.dataSource, ANY_RECOVERED);
    return rows[0].any;
  }

  /** Up to `limit` bots whose receiver recovered with dead letters waiting, locked until the caller commits. */
  async recoveredBots(on: SqlTarget, limit: number): Promise<string[]> {
    const { rows } = await runStatement<{ bot_id: string }>(on, RECOVERED_BOTS, [limit]);
    return rows.map((row) => row.bot_id);
  }

  async clearRecovered(on: SqlTarget, botIds: string[]): Promise<void> {
    if (botIds.length > 0) await runStatement(on, CLEAR_RECOVERED, [botIds]);
  }
}
