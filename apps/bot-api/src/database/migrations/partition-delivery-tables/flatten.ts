import type { QueryRunner } from 'typeorm';

/**
 * The revert of the partitioning: the three tables flat again, exactly as release 1.1.0 left them (its
 * keys, indexes and the attempts' identity), with every row copied back. It copies each table twice
 * and holds its lock meanwhile, so it is for going back to 1.1.0's schema by hand; a rollback of the
 * release needs none of it, 1.1.0 runs on the partitioned tables.
 */
export async function flattenDeliveryTables(queryRunner: QueryRunner): Promise<void> {
  await queryRunner.startTransaction();
  try {
    for (const statement of FLATTEN) await queryRunner.query(statement);
    await queryRunner.commitTransaction();
  } catch (error) {
    await queryRunner.rollbackTransaction();
    throw error;
  }
}

const FLATTEN = [
  `CREATE TEMPORARY TABLE updates_rows ON COMMIT DROP AS SELECT * FROM updates`,
  `CREATE TEMPORARY TABLE deliveries_rows ON COMMIT DROP AS SELECT * FROM webhook_deliveries`,
  `CREATE TEMPORARY TABLE attempts_rows ON COMMIT DROP AS SELECT * FROM webhook_delivery_attempts`,
  `ALTER SEQUENCE updates_update_seq_seq OWNED BY NONE`,
  `DROP TABLE webhook_delivery_attempts, webhook_deliveries, updates`,
  `DROP FUNCTION IF EXISTS create_delivery_days_ahead(integer)`,

  `CREATE TABLE updates (
     update_seq bigint PRIMARY KEY DEFAULT nextval('updates_update_seq_seq'),
     update_id uuid NOT NULL UNIQUE,
     bot_id varchar(24) NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
     type varchar(32) NOT NULL,
     payload jsonb NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now(),
     acknowledged boolean NOT NULL DEFAULT false
   )`,
  `ALTER SEQUENCE updates_update_seq_seq OWNED BY updates.update_seq`,
  `CREATE INDEX updates_pending ON updates (bot_id, update_seq) WHERE NOT acknowledged`,
  `CREATE INDEX updates_created ON updates (created_at)`,
  `INSERT INTO updates SELECT * FROM updates_rows`,

  `CREATE TABLE webhook_deliveries (
     id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
     bot_id varchar(24) NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
     update_seq bigint NOT NULL,
     update_id uuid NOT NULL UNIQUE,
     update_type varchar(32) NOT NULL,
     payload jsonb NOT NULL,
     status varchar(16) NOT NULL DEFAULT 'pending'
       CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('pending', 'retrying', 'succeeded', 'dead_letter')),
     series integer NOT NULL DEFAULT 1 CONSTRAINT webhook_deliveries_series_check CHECK (series >= 1),
     attempts integer NOT NULL DEFAULT 0 CONSTRAINT webhook_deliveries_attempts_check CHECK (attempts >= 0),
     next_attempt_at timestamptz NOT NULL DEFAULT now(),
     last_error text,
     last_status_code integer,
     succeeded_at timestamptz,
     dead_letter_at timestamptz,
     created_at timestamptz NOT NULL DEFAULT now(),
     updated_at timestamptz NOT NULL DEFAULT now(),
     trigger varchar(16) NOT NULL DEFAULT 'first_attempt'
       CONSTRAINT webhook_deliveries_trigger_check CHECK (trigger IN ('first_attempt', 'manual', 'staff', 'auto')),
     CONSTRAINT webhook_deliveries_dead_letter CHECK ((status = 'dead_letter') = (dead_letter_at IS NOT NULL))
   )`,
  `CREATE INDEX webhook_deliveries_bot ON webhook_deliveries (bot_id, update_seq DESC)`,
  `CREATE INDEX webhook_deliveries_auto_redrivable ON webhook_deliveries (bot_id, update_seq)
     WHERE status = 'dead_letter' AND trigger <> 'auto'`,
  `CREATE INDEX webhook_deliveries_bot_dead ON webhook_deliveries (bot_id, dead_letter_at) WHERE status = 'dead_letter'`,
  `CREATE INDEX webhook_deliveries_dead_letters ON webhook_deliveries (dead_letter_at DESC, id DESC)
     WHERE status = 'dead_letter'`,
  `CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status IN ('pending', 'retrying')`,
  `CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (updated_at) WHERE status IN ('succeeded', 'dead_letter')`,
  `INSERT INTO webhook_deliveries SELECT * FROM deliveries_rows`,

  `CREATE TABLE webhook_delivery_attempts (
     id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
     series integer NOT NULL,
     attempt integer NOT NULL CONSTRAINT webhook_delivery_attempts_attempt_check CHECK (attempt BETWEEN 1 AND 5),
     status_code integer,
     latency_ms integer NOT NULL CONSTRAINT webhook_delivery_attempts_latency_ms_check CHECK (latency_ms >= 0),
     error text,
     created_at timestamptz NOT NULL DEFAULT now(),
     trigger varchar(16) NOT NULL DEFAULT 'first_attempt'
       CONSTRAINT webhook_delivery_attempts_trigger_check CHECK (trigger IN ('first_attempt', 'manual', 'staff', 'auto')),
     delivery_created_at timestamptz,
     UNIQUE (delivery_id, series, attempt)
   )`,
  `CREATE INDEX webhook_delivery_attempts_day_pending ON webhook_delivery_attempts (id) WHERE delivery_created_at IS NULL`,
  `INSERT INTO webhook_delivery_attempts OVERRIDING SYSTEM VALUE SELECT * FROM attempts_rows`,
  `SELECT setval(pg_get_serial_sequence('webhook_delivery_attempts', 'id'), coalesce(max(id), 0) + 1, false)
     FROM webhook_delivery_attempts`,
];
