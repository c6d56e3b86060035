import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook configuration of a bot, and the delivery outbox with every attempt. A delivery keeps its
 * own copy of the Update, so dead letters outlive the getUpdates retention of the updates table and
 * can be redelivered until the delivery log's own retention removes them.
 */
export class CreateWebhookDeliveries1795306900000 implements MigrationInterface {
  name = 'CreateWebhookDeliveries1795306900000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE bots
        ADD COLUMN webhook_url                varchar(2048),
        ADD COLUMN webhook_secret_ciphertext  text,
        ADD COLUMN webhook_allowed_ips        text[],
        ADD COLUMN webhook_max_connections    integer NOT NULL DEFAULT 40
                                              CHECK (webhook_max_connections BETWEEN 1 AND 100),
        ADD COLUMN webhook_last_error_at      timestamptz,
        ADD COLUMN webhook_last_error_message text`);

    await queryRunner.query(`
      CREATE TABLE webhook_deliveries (
        id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        bot_id            varchar(24)  NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
        update_seq        bigint       NOT NULL,
        update_id         uuid         NOT NULL UNIQUE,
        update_type       varchar(32)  NOT NULL,
        payload           jsonb        NOT NULL,
        status            varchar(16)  NOT NULL DEFAULT 'pending'
                          CHECK (status IN ('pending', 'retrying', 'succeeded', 'dead_letter')),
        series            integer      NOT NULL DEFAULT 1 CHECK (series >= 1),
        attempts          integer      NOT NULL DEFAULT 0 CHECK (attempts >= 0),
        next_attempt_at   timestamptz  NOT NULL DEFAULT now(),
        last_error        text,
        last_status_code  integer,
        succeeded_at      timestamptz,
        dead_letter_at    timestamptz,
        created_at        timestamptz  NOT NULL DEFAULT now(),
        updated_at        timestamptz  NOT NULL DEFAULT now(),
        CONSTRAINT webhook_deliveries_dead_letter CHECK ((status = 'dead_letter') = (dead_letter_at IS NOT NULL))
      )`);
    // The sweeper's scan: open deliveries by due time.
    await queryRunner.query(
      `CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at)
        WHERE status IN ('pending', 'retrying')`,
    );
    await queryRunner.query(`CREATE INDEX webhook_deliveries_bot ON webhook_deliveries (bot_id, update_seq DESC)`);
    // The delivery log purge: finished deliveries by age.
    await queryRunner.query(
      `CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (updated_at)
        WHERE status IN ('succeeded', 'dead_letter')`,
    );
    await queryRunner.query(
      `CREATE INDEX webhook_deliveries_bot_dead ON webhook_deliveries (bot_id, dead_letter_at)
        WHERE status = 'dead_letter'`,
    );

    await queryRunner.query(`
      CREATE TABLE webhook_delivery_attempts (
        id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        delivery_id  uuid        NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
        series       integer     NOT NULL,
        attempt      integer     NOT NULL CHECK (attempt BETWEEN 1 AND 5),
        status_code  integer,
        latency_ms   integer     NOT NULL CHECK (latency_ms >= 0),
        error        text,
        created_at   timestamptz NOT NULL DEFAULT now(),
        UNIQUE (delivery_id, series, attempt)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE webhook_delivery_attempts`);
    await queryRunner.query(`DROP TABLE webhook_deliveries`);
    await queryRunner.query(`
      ALTER TABLE bots
        DROP COLUMN webhook_url,
        DROP COLUMN webhook_secret_ciphertext,
        DROP COLUMN webhook_allowed_ips,
        DROP COLUMN webhook_max_connections,
        DROP COLUMN webhook_last_error_at,
        DROP COLUMN webhook_last_error_message`);
  }
}
