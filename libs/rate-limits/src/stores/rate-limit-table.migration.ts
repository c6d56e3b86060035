import type { MigrationInterface, QueryRunner } from 'typeorm';
import { RATE_LIMIT_TABLE } from './rate-limits.store';

/**
 * The migration of a service that creates the counters table of the PostgreSQL-only mode, in the
 * exact shape RateLimiterPostgres reads and writes (its `_getCreateTableStmt`): the key with the
 * limiter's prefix, the points of the window, and the window's end in epoch milliseconds.
 * UNLOGGED: counters need no WAL; a crash or a fail-over at worst starts every window afresh.
 */
export function rateLimitTableMigration(name: string): new () => MigrationInterface {
  const migration = class implements MigrationInterface {
    readonly name = name;

    async up(queryRunner: QueryRunner): Promise<void> {
      await queryRunner.query(
        `CREATE UNLOGGED TABLE ${RATE_LIMIT_TABLE} (
          key varchar(255) PRIMARY KEY,
          points integer NOT NULL DEFAULT 0,
          expire bigint
        )`,
      );
    }

    async down(queryRunner: QueryRunner): Promise<void> {
      await queryRunner.query(`DROP TABLE ${RATE_LIMIT_TABLE}`);
    }
  };
  Object.defineProperty(migration, 'name', { value: name });
  return migration;
}
