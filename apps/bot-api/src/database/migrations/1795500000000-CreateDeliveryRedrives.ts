import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Platform staff's delivery operations: redrive jobs with the dead letters each one took (its
 * snapshot, so progress, resumption after a restart and "each dead letter at most once per job" are
 * all read from PostgreSQL), and the audit log of every staff action on deliveries.
 */
export class CreateDeliveryRedrives1795500000000 implements MigrationInterface {
  name = 'CreateDeliveryRedrives1795500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE delivery_redrive_jobs (
        id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        status        varchar(16)  NOT NULL DEFAULT 'running'
                      CHECK (status IN ('running', 'completed', 'cancelled')),
        filter        jsonb        NOT NULL,
        rate_per_bot  integer      NOT NULL CHECK (rate_per_bot >= 1),
        total         integer      NOT NULL CHECK (total >= 0),
        created_by    varchar(128) NOT NULL,
        lease_owner   uuid,
        lease_until   timestamptz,
        created_at    timestamptz  NOT NULL DEFAULT now(),
        updated_at    timestamptz  NOT NULL DEFAULT now(),
        finished_at   timestamptz
      )`);
    await queryRunner.query(
      `CREATE INDEX delivery_redrive_jobs_running ON delivery_redrive_jobs (created_at) WHERE status = 'running'`,
    );
    await queryRunner.query(
      `CREATE INDEX delivery_redrive_jobs_recent ON delivery_redrive_jobs (created_at DESC, id DESC)`,
    );

    // No foreign key to webhook_deliveries: the delivery log's purge may remove a delivery a job still lists.
    await queryRunner.query(`
      CREATE TABLE delivery_redrive_items (
        job_id        uuid         NOT NULL REFERENCES delivery_redrive_jobs (id) ON DELETE CASCADE,
        delivery_id   uuid         NOT NULL,
        bot_id        varchar(24)  NOT NULL,
        update_seq    bigint       NOT NULL,
        state         varchar(8)   NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done', 'failed')),
        error         text,
        processed_at  timestamptz,
        PRIMARY KEY (job_id, delivery_id)
      )`);
    // The worker's walk: the next dead letters of a job per bot, in update order.
    await queryRunner.query(
      `CREATE INDEX delivery_redrive_items_next ON delivery_redrive_items (job_id, bot_id, update_seq)
        WHERE state = 'pending'`,
    );

    await queryRunner.query(`
      CREATE TABLE staff_audit_log (
        id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        actor_id    varchar(128) NOT NULL,
        action      varchar(64)  NOT NULL,
        target      text,
        filter      jsonb,
        counts      jsonb,
        created_at  timestamptz  NOT NULL DEFAULT now()
      )`);

    // The platform-wide dead letter list, newest first.
    await queryRunner.query(
      `CREATE INDEX webhook_deliveries_dead_letters ON webhook_deliveries (dead_letter_at DESC, id DESC)
        WHERE status = 'dead_letter'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX webhook_deliveries_dead_letters`);
    await queryRunner.query(`DROP TABLE staff_audit_log`);
    await queryRunner.query(`DROP TABLE delivery_redrive_items`);
    await queryRunner.query(`DROP TABLE delivery_redrive_jobs`);
  }
}
