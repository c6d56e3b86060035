import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The attempts that do not carry their delivery's created_at yet, for the dispatcher's periodic
 * backfill: a partial index that holds every earlier attempt when it is built and empties as the
 * backfill fills them (attempts of this release are written filled and never enter it), so that
 * afterwards each run is one look into an empty index. Built CONCURRENTLY, outside a transaction, so
 * that attempts go on being recorded meanwhile; a build that failed (leaving an invalid index) is
 * dropped and made again on the next run.
 */
export class AttemptDeliveryDayPendingIndex1796400000001 implements MigrationInterface {
  name = 'AttemptDeliveryDayPendingIndex1796400000001';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS webhook_delivery_attempts_day_pending`);
    await queryRunner.query(
      `-- squawk-ignore prefer-robust-stmts -- the DROP INDEX CONCURRENTLY IF EXISTS before the build makes a rerun safe
      CREATE INDEX CONCURRENTLY webhook_delivery_attempts_day_pending ON webhook_delivery_attempts (id)
        WHERE delivery_created_at IS NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // A revert runs in a transaction, where CONCURRENTLY is not allowed.
    await queryRunner.query(`DROP INDEX IF EXISTS webhook_delivery_attempts_day_pending`);
  }
}
