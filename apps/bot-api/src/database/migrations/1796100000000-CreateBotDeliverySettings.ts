import { MigrationInterface, QueryRunner } from 'typeorm';

/** The delivery columns of `bots`, in the order `bots` had them; the down migration restores them so. */
const MOVED_COLUMNS = [
  'delivery_mode',
  'allowed_updates',
  'webhook_url',
  'webhook_secret_ciphertext',
  'webhook_allowed_ips',
  'webhook_max_connections',
  'webhook_last_error_at',
  'webhook_last_error_message',
  'webhook_previous_secret_ciphertext',
  'webhook_previous_secret_expires_at',
  'webhook_not_before',
  'webhook_gone_streak',
  'webhook_paused_at',
  'auto_redeliver_dead_letters',
  'webhook_recovered_at',
  'webhook_format',
].join(', ');

const qualified = (alias: string): string =>
  MOVED_COLUMNS.split(', ')
    .map((column) => `${alias}.${column}`)
    .join(', ');

/**
 * A bot's delivery settings leave `bots` for a table of their own, so each table has one writer:
 * `bots` is bot-api's, `bot_delivery_settings` belongs to bot delivery (@app/bot-delivery), which
 * bot-api's setWebhook, getUpdates and bot settings call and bot-dispatcher writes per attempt.
 * One row per bot, created with the bot. `updated_at` keeps when a developer last changed a setting,
 * which a bot's `updated_at` shows as before.
 */
export class CreateBotDeliverySettings1796100000000 implements MigrationInterface {
  name = 'CreateBotDeliverySettings1796100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE bot_delivery_settings (
        bot_id                             varchar(24) PRIMARY KEY REFERENCES bots (id) ON DELETE CASCADE,
        delivery_mode                      varchar(16) NOT NULL DEFAULT 'polling'
                                           CHECK (delivery_mode IN ('webhook', 'polling')),
        allowed_updates                    text[],
        webhook_url                        varchar(2048),
        webhook_secret_ciphertext          text,
        webhook_allowed_ips                text[],
        webhook_max_connections            integer NOT NULL DEFAULT 40 CHECK (webhook_max_connections BETWEEN 1 AND 100),
        webhook_last_error_at              timestamptz,
        webhook_last_error_message         text,
        webhook_previous_secret_ciphertext text,
        webhook_previous_secret_expires_at timestamptz,
        webhook_not_before                 timestamptz,
        webhook_gone_streak                integer NOT NULL DEFAULT 0,
        webhook_paused_at                  timestamptz,
        auto_redeliver_dead_letters        boolean NOT NULL DEFAULT false,
        webhook_recovered_at               timestamptz,
        webhook_format                     varchar(16) NOT NULL DEFAULT 'native'
                                           CHECK (webhook_format IN ('native', 'telegram')),
        updated_at                         timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT bot_delivery_settings_previous_secret
          CHECK ((webhook_previous_secret_ciphertext IS NULL) = (webhook_previous_secret_expires_at IS NULL))
      )`);
    await queryRunner.query(
      `INSERT INTO bot_delivery_settings (bot_id, ${MOVED_COLUMNS}, updated_at)
       SELECT id, ${MOVED_COLUMNS}, updated_at FROM bots`,
    );
    // The redrive worker's look-up of bots whose receiver recovered: a handful at any time.
    await queryRunner.query(
      `CREATE INDEX bot_delivery_settings_recovered ON bot_delivery_settings (webhook_recovered_at)
        WHERE webhook_recovered_at IS NOT NULL`,
    );
    await queryRunner.query(`DROP INDEX bots_webhook_recovered`);
    await queryRunner.query(`ALTER TABLE bots DROP CONSTRAINT bots_webhook_previous_secret`);
    await queryRunner.query(
      `ALTER TABLE bots ${MOVED_COLUMNS.split(', ')
        .map((column) => `DROP COLUMN ${column}`)
        .join(', ')}`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE bots
        ADD COLUMN delivery_mode varchar(16) NOT NULL DEFAULT 'polling' CHECK (delivery_mode IN ('webhook', 'polling')),
        ADD COLUMN allowed_updates text[],
        ADD COLUMN webhook_url varchar(2048),
        ADD COLUMN webhook_secret_ciphertext text,
        ADD COLUMN webhook_allowed_ips text[],
        ADD COLUMN webhook_max_connections integer NOT NULL DEFAULT 40 CHECK (webhook_max_connections BETWEEN 1 AND 100),
        ADD COLUMN webhook_last_error_at timestamptz,
        ADD COLUMN webhook_last_error_message text,
        ADD COLUMN webhook_previous_secret_ciphertext text,
        ADD COLUMN webhook_previous_secret_expires_at timestamptz,
        ADD COLUMN webhook_not_before timestamptz,
        ADD COLUMN webhook_gone_streak integer NOT NULL DEFAULT 0,
        ADD COLUMN webhook_paused_at timestamptz,
        ADD COLUMN auto_redeliver_dead_letters boolean NOT NULL DEFAULT false,
        ADD COLUMN webhook_recovered_at timestamptz,
        ADD COLUMN webhook_format varchar(16) NOT NULL DEFAULT 'native'
          CONSTRAINT bots_webhook_format CHECK (webhook_format IN ('native', 'telegram')),
        ADD CONSTRAINT bots_webhook_previous_secret
          CHECK ((webhook_previous_secret_ciphertext IS NULL) = (webhook_previous_secret_expires_at IS NULL))`);
    await queryRunner.query(
      `UPDATE bots b SET (${MOVED_COLUMNS}) = (SELECT ${qualified('s')}), updated_at = greatest(b.updated_at, s.updated_at)
         FROM bot_delivery_settings s WHERE s.bot_id = b.id`,
    );
    await queryRunner.query(
      `CREATE INDEX bots_webhook_recovered ON bots (webhook_recovered_at) WHERE webhook_recovered_at IS NOT NULL`,
    );
    await queryRunner.query(`DROP TABLE bot_delivery_settings`);
  }
}
