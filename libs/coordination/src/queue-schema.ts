import { assertSchemaCompatibility, runMigrations, SchemaMigrationRequiredError } from 'bullmq';
import type { PgQueryable } from 'bullmq';
import { Client } from 'pg';
import type { DatabaseSettings } from '@app/platform';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { QUEUE_SCHEMA } from './queue-connection';

/** TypeORM's query runner as the plain `pg` queryable BullMQ's migrator expects (one session). */
function queryable(queryRunner: QueryRunner): PgQueryable {
  return {
    async query(text: string, params?: readonly unknown[]) {
      const result = await queryRunner.query(text, params as unknown[] | undefined, true);
      return { rows: result.records ?? [], rowCount: result.affected ?? null };
    },
  };
}

/**
 * The migration that creates (or upgrades) BullMQ's PostgreSQL schema with the service's own
 * migrations, so `npm run migration:run`, the migration Job and the test templates all include it.
 * BullMQ's migrator opens its own transaction under an advisory lock, hence no TypeORM transaction.
 */
export function queueSchemaMigration(name: string): new () => MigrationInterface {
  const migration = class implements MigrationInterface {
    readonly name = name;
    readonly transaction = false;

    async up(queryRunner: QueryRunner): Promise<void> {
      await runMigrations(queryable(queryRunner), QUEUE_SCHEMA);
    }

    async down(queryRunner: QueryRunner): Promise<void> {
      await queryRunner.query(`DROP SCHEMA IF EXISTS ${QUEUE_SCHEMA} CASCADE`);
    }
  };
  Object.defineProperty(migration, 'name', { value: name });
  return migration;
}

export class QueueSchemaMissingError extends Error {
  constructor(database: string, cause: Error) {
    super(
      `BullMQ's PostgreSQL schema "${QUEUE_SCHEMA}" in database ${database} is missing or out of date ` +
        `(${cause.message}); run the service's migrations (npm run migration:run, the migration Job, ` +
        'or MIGRATIONS_RUN=true)',
    );
    this.name = 'QueueSchemaMissingError';
  }
}

/**
 * Brings BullMQ's schema up to this BullMQ's version (when the process runs migrations) or checks it.
 * Without this, a worker on a database lacking the schema loops on SchemaMigrationRequiredError
 * until the process runs out of memory; here it is one clear boot error instead.
 */
export async function prepareQueueSchema(settings: DatabaseSettings, migrate: boolean): Promise<void> {
  const client = new Client({ ...settings, database: settings.database, application_name: 'queue-schema' });
  await client.connect();
  try {
    if (migrate) {
      await runMigrations(client, QUEUE_SCHEMA);
      return;
    }
    await assertSchemaCompatibility(client, QUEUE_SCHEMA);
  } catch (error) {
    if (error instanceof SchemaMigrationRequiredError) throw new QueueSchemaMissingError(settings.database, error);
    throw error;
  } finally {
    await client.end();
  }
}
