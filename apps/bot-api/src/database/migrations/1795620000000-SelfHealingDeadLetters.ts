import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Self-healing dead letters: the per-bot switch, the mark the dispatcher leaves when a receiver with
 * waiting dead letters answers 2xx again, which way each attempt series was started (its trigger),
 * and redrive jobs started by the system for one bot (at most one running per bot).
 */
export class SelfHealingDeadLetters1795620000000 implements MigrationInterface {
  name = 'SelfHealingDeadLetters1795620000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE bots
        ADD COLUMN auto_redeliver_dead_letters boolean NOT NULL DEFAULT false,
        ADD COLUMN webhook_recovered_at timestamptz`);
    // The redrive worker's look-up of bots whose receiver recovered: a handful at any time.
    await queryRunner.query(
      `CREATE INDEX bots_webhook_recovered ON bots (webhook_recovered_at) WHERE webhook_recovered_at IS NOT NULL`,
    );

    const triggers = `'first_attempt', 'manual', 'staff', 'auto'`;
    await queryRunner.query(`
      ALTER TABLE webhook_deliveries
        ADD COLUMN "trigger" varchar(16) NOT NULL DEFAULT 'first_attempt' CHECK ("trigger" IN (${triggers}))`);
    await queryRunner.query(`
      ALTER TABLE webhook_delivery_attempts
        ADD COLUMN "trigger" varchar(16) NOT NULL DEFAULT 'first_attempt' CHECK ("trigger" IN (${triggers}))`);
    // Series restarted before triggers were recorded: by a staff redrive job when one took the delivery,
    // else by the developer or a single staff redelivery, which left no trace apart; 'manual' is the closest.
    await queryRunner.query(`
      UPDATE webhook_deliveries d
         SET "trigger" = CASE WHEN EXISTS (SELECT 1 FROM delivery_redrive_items i
                                           WHERE i.delivery_id = d.id AND i.state = 'done')
                              THEN 'staff' ELSE 'manual' END
       WHERE d.series > 1`);
    await queryRunner.query(`
      UPDATE webhook_delivery_attempts a SET "trigger" = d."trigger"
        FROM webhook_deliveries d
       WHERE a.delivery_id = d.id AND a.series = d.series AND d.series > 1`);
    await queryRunner.query(`UPDATE webhook_delivery_attempts SET "trigger" = 'manual' WHERE series > 1
                               AND "trigger" = 'first_attempt'`);
    // Dead letters an automatic redrive may still take, per bot in update order (the recovery check and the job's snapshot).
    await queryRunner.query(
      `CREATE INDEX webhook_deliveries_auto_redrivable ON webhook_deliveries (bot_id, update_seq)
        WHERE status = 'dead_letter' AND "trigger" <> 'auto'`,
    );

    await queryRunner.query(`
      ALTER TABLE delivery_redrive_jobs
        ADD COLUMN kind varchar(8) NOT NULL DEFAULT 'staff' CHECK (kind IN ('staff', 'auto')),
        ADD COLUMN bot_id varchar(24),
        ADD CONSTRAINT delivery_redrive_jobs_auto_bot CHECK (kind = 'staff' OR bot_id IS NOT NULL)`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX delivery_redrive_jobs_one_auto_per_bot ON delivery_redrive_jobs (bot_id)
        WHERE kind = 'auto' AND status = 'running'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX delivery_redrive_jobs_one_auto_per_bot`);
    await queryRunner.query(`DELETE FROM delivery_redrive_jobs WHERE kind = 'auto'`);
    await queryRunner.query(`
      ALTER TABLE delivery_redrive_jobs
        DROP CONSTRAINT delivery_redrive_jobs_auto_bot, DROP COLUMN bot_id, DROP COLUMN kind`);
    await queryRunner.query(`DROP INDEX webhook_deliveries_auto_redrivable`);
    await queryRunner.query(`ALTER TABLE webhook_delivery_attempts DROP COLUMN "trigger"`);
    await queryRunner.query(`ALTER TABLE webhook_deliveries DROP COLUMN "trigger"`);
    await queryRunner.query(`DROP INDEX bots_webhook_recovered`);
    await queryRunner.query(
      `ALTER TABLE bots DROP COLUMN webhook_recovered_at, DROP COLUMN auto_redeliver_dead_letters`,
    );
  }
}
