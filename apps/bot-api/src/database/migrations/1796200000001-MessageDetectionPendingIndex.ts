import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The messages whose entities are still to be detected, newest first, for the periodic backfill: a
 * partial index that holds every existing message when it is built and empties as the backfill
 * stores their entities, so that afterwards each run is one look into an empty index. Built
 * CONCURRENTLY, outside a transaction, so that writes to `messages` go on meanwhile; a build that
 * failed (leaving an invalid index) is dropped and made again on the next run.
 */
export class MessageDetectionPendingIndex1796200000001 implements MigrationInterface {
  name = 'MessageDetectionPendingIndex1796200000001';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`SET lock_timeout = '5s'`);
    try {
      await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS messages_detection_pending`);
      await queryRunner.query(
        `CREATE INDEX CONCURRENTLY messages_detection_pending ON messages (id) WHERE detected_entities IS NULL`,
      );
    } finally {
      // The connection goes back to the pool the application uses.
      await queryRunner.query(`RESET lock_timeout`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // A revert runs in a transaction, where CONCURRENTLY is not allowed.
    await queryRunner.query(`SET LOCAL lock_timeout = '5s'`);
    await queryRunner.query(`DROP INDEX IF EXISTS messages_detection_pending`);
  }
}
