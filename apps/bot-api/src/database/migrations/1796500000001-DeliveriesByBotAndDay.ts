import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The deliveries console's order on the partitioned delivery log: a bot's deliveries newest day first
 * (`created_at DESC`, then `update_seq DESC` within), so that PostgreSQL reads the days in order and
 * stops at the page's limit instead of merging the first rows of every day kept (docs/operations.md,
 * "Growth of the delivery tables"). The index is made on the parent alone first (every partition
 * attached from then on, by the periodic task, gets its own), then built CONCURRENTLY on each existing
 * partition and attached: no writer waits on a build. A build that failed (leaving an invalid index) is
 * dropped and made again when the migration runs again.
 */
export class DeliveriesByBotAndDay1796500000001 implements MigrationInterface {
  name = 'DeliveriesByBotAndDay1796500000001';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `-- squawk-ignore require-concurrent-index-creation -- ON ONLY: the parent holds no rows, nothing is built and its lock lasts an instant
      CREATE INDEX IF NOT EXISTS webhook_deliveries_bot_day
         ON ONLY webhook_deliveries (bot_id, created_at DESC, update_seq DESC)`,
    );
    const partitions: Array<{ partition: string; index: string; attached: boolean; valid: boolean | null }> =
      await queryRunner.query(`
        SELECT c.relname AS partition, c.relname || '_bot_day' AS index,
               x.indexrelid IS NOT NULL AND EXISTS (SELECT 1 FROM pg_inherits h
                                                     WHERE h.inhrelid = x.indexrelid
                                                       AND h.inhparent = 'webhook_deliveries_bot_day'::regclass) AS attached,
               x.indisvalid AS valid
          FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
          LEFT JOIN pg_index x ON x.indexrelid = to_regclass(c.relname || '_bot_day')
         WHERE i.inhparent = 'webhook_deliveries'::regclass
         ORDER BY 1`);
    for (const { partition, index, attached, valid } of partitions) {
      if (attached) continue;
      if (!valid) {
        await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS ${index}`);
        await queryRunner.query(
          `-- squawk-ignore prefer-robust-stmts -- the DROP INDEX CONCURRENTLY IF EXISTS before the build makes a rerun safe
          CREATE INDEX CONCURRENTLY ${index} ON ${partition} (bot_id, created_at DESC, update_seq DESC)`,
        );
      }
      await queryRunner.query(`ALTER INDEX webhook_deliveries_bot_day ATTACH PARTITION ${index}`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Dropping the parent's index drops every partition's with it.
    await queryRunner.query(`DROP INDEX IF EXISTS webhook_deliveries_bot_day`);
  }
}
