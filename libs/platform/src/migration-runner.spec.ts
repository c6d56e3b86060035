import { Client } from 'pg';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { createEmptyDatabase, TestDatabase, testDatabaseSettings } from '@app/testing';
import { applyMigrations, DatabaseSettings } from './database';
import { MigrationTimeouts, runsLongWithoutBlocking } from './migration-runner';

const TIMEOUTS: MigrationTimeouts = { lockTimeoutMs: 300, statementTimeoutMs: 1500 };

/** What each migration of a run saw of the two settings, by migration and moment. */
const seen: Record<string, string> = {};

async function settingsNow(queryRunner: QueryRunner): Promise<string> {
  const [row] = await queryRunner.query(
    "SELECT current_setting('lock_timeout') AS lock, current_setting('statement_timeout') AS statement",
  );
  return `lock ${row.lock}, statement ${row.statement}`;
}

class CreateGrowing1700000000001 implements MigrationInterface {
  name = 'CreateGrowing1700000000001';
  async up(queryRunner: QueryRunner): Promise<void> {
    seen.transactional = await settingsNow(queryRunner);
    await queryRunner.query('CREATE TABLE growing (id int PRIMARY KEY, note text)');
  }
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE growing');
  }
}

class IndexGrowing1700000000002 implements MigrationInterface {
  name = 'IndexGrowing1700000000002';
  transaction = false;
  async up(queryRunner: QueryRunner): Promise<void> {
    seen.outsideBefore = await settingsNow(queryRunner);
    await queryRunner.query('CREATE INDEX CONCURRENTLY IF NOT EXISTS growing_note ON growing (note)');
    seen.outsideAfter = await settingsNow(queryRunner);
  }
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX CONCURRENTLY IF EXISTS growing_note');
  }
}

class Checkpoint1700000000003 implements MigrationInterface {
  name = 'Checkpoint1700000000003';
  transaction = false;
  async up(queryRunner: QueryRunner): Promise<void> {
    seen.nextOutside = await settingsNow(queryRunner);
  }
  async down(): Promise<void> {}
}

class AlterGrowing1700000000004 implements MigrationInterface {
  name = 'AlterGrowing1700000000004';
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE growing ADD COLUMN extra text');
  }
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE growing DROP COLUMN extra');
  }
}

class AlterGrowingOutside1700000000005 implements MigrationInterface {
  name = 'AlterGrowingOutside1700000000005';
  transaction = false;
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE growing ADD COLUMN other text');
  }
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE growing DROP COLUMN other');
  }
}

class SlowBackfill1700000000006 implements MigrationInterface {
  name = 'SlowBackfill1700000000006';
  async up(queryRunner: QueryRunner): Promise<void> {
    // A backfill that never ends on its own (CPU only, nothing written): only the statement timeout ends it.
    await queryRunner.query('DO $$ BEGIN LOOP PERFORM 1; END LOOP; END $$');
  }
  async down(): Promise<void> {}
}

describe('the migration runner', () => {
  let database: TestDatabase;
  let settings: DatabaseSettings;

  beforeAll(async () => {
    database = await createEmptyDatabase('platform');
    settings = testDatabaseSettings(database.name, 2);
  });

  afterAll(() => database.drop());

  it('sets both timeouts in every migration: first in its transaction, per connection outside one, and resets them after', async () => {
    const applied = await applyMigrations(
      settings,
      [CreateGrowing1700000000001, IndexGrowing1700000000002, Checkpoint1700000000003],
      TIMEOUTS,
    );
    expect(applied).toEqual(['CreateGrowing1700000000001', 'IndexGrowing1700000000002', 'Checkpoint1700000000003']);
    expect(seen).toEqual({
      transactional: 'lock 300ms, statement 1500ms',
      outsideBefore: 'lock 300ms, statement 1500ms',
      // The concurrent build ran without the statement timeout, which is back for what follows.
      outsideAfter: 'lock 300ms, statement 1500ms',
      nextOutside: 'lock 300ms, statement 1500ms',
    });
  });

  it('fails a migration that waits longer than the lock timeout for a busy table, in a transaction or not', async () => {
    const reader = new Client({ ...settings });
    await reader.connect();
    try {
      // A long read holds the table: an ALTER TABLE must not queue every later query behind itself.
      await reader.query('BEGIN');
      await reader.query('SELECT count(*) FROM growing');
      for (const migration of [AlterGrowing1700000000004, AlterGrowingOutside1700000000005]) {
        const started = Date.now();
        await expect(applyMigrations(settings, [migration], TIMEOUTS)).rejects.toThrow('lock timeout');
        expect(Date.now() - started).toBeLessThan(10_000);
      }
    } finally {
      await reader.query('ROLLBACK');
      await reader.end();
    }
    await expect(applyMigrations(settings, [AlterGrowing1700000000004], TIMEOUTS)).resolves.toEqual([
      'AlterGrowing1700000000004',
    ]);
  });

  it('fails a migration whose statement runs longer than the statement timeout, and records nothing', async () => {
    await expect(applyMigrations(settings, [SlowBackfill1700000000006], TIMEOUTS)).rejects.toThrow('statement timeout');
    const client = new Client({ ...settings });
    await client.connect();
    try {
      const { rows } = await client.query("SELECT 1 FROM migrations WHERE name = 'SlowBackfill1700000000006'");
      expect(rows).toEqual([]);
    } finally {
      await client.end();
    }
  });

  it('lifts the statement timeout only for statements that block no reader or writer', () => {
    for (const sql of [
      'CREATE INDEX CONCURRENTLY a ON t (x)',
      '-- squawk-ignore prefer-robust-stmts -- why\n  create unique index concurrently a on t (x)',
      'DROP INDEX CONCURRENTLY IF EXISTS a',
      'REINDEX (VERBOSE) INDEX CONCURRENTLY a',
      'ALTER TABLE ONLY t VALIDATE CONSTRAINT c',
    ]) {
      expect([sql, runsLongWithoutBlocking(sql)]).toEqual([sql, true]);
    }
    for (const sql of ['CREATE INDEX a ON t (x)', 'ALTER TABLE t ADD COLUMN c int', 'UPDATE t SET x = 1']) {
      expect([sql, runsLongWithoutBlocking(sql)]).toEqual([sql, false]);
    }
  });
});
