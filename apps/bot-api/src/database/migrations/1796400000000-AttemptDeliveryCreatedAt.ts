import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The first step of partitioning the delivery tables by day (docs/operations.md, "Growth of the
 * delivery tables"): every attempt records its delivery's `created_at`, the key it will be partitioned
 * and referenced by. Nullable, with no default and no backfill: the previous release writes attempts
 * without it, and the release that partitions fills the older rows in batches before it sets NOT NULL.
 * Adding a nullable column without a default rewrites nothing and holds its lock for an instant (under
 * the migration runner's lock timeout).
 */
export class AttemptDeliveryCreatedAt1796400000000 implements MigrationInterface {
  name = 'AttemptDeliveryCreatedAt1796400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE webhook_delivery_attempts ADD COLUMN delivery_created_at timestamptz`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE webhook_delivery_attempts DROP COLUMN delivery_created_at`);
  }
}
