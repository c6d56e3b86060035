import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { LINT_EXCEPTIONS } from './exceptions';
import { lintMigrations, SERVICE_MIGRATIONS, squawk, writeMigrationSql } from './lint-migrations';

class CreateGrowing1800000000000 implements MigrationInterface {
  name = 'CreateGrowing1800000000000';
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE TABLE growing (id bigint PRIMARY KEY, note text)');
  }
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE growing');
  }
}

/** What a new migration must not do: block every write to a table that grows while the index builds. */
class IndexGrowingInPlace1800000000001 implements MigrationInterface {
  name = 'IndexGrowingInPlace1800000000001';
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE INDEX growing_note ON growing (note)');
  }
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX growing_note');
  }
}

class IndexGrowingConcurrently1800000000001 implements MigrationInterface {
  name = 'IndexGrowingConcurrently1800000000001';
  transaction = false;
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE INDEX CONCURRENTLY IF NOT EXISTS growing_note ON growing (note)');
  }
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX CONCURRENTLY IF EXISTS growing_note');
  }
}

class IndexGrowingExcused1800000000001 implements MigrationInterface {
  name = 'IndexGrowingExcused1800000000001';
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`-- squawk-ignore require-concurrent-index-creation -- the table is written once, at install
      CREATE INDEX growing_note ON growing (note)`);
  }
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX growing_note');
  }
}

describe('lint:migrations', () => {
  let out: string;

  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), 'migration-sql-'));
  });

  afterAll(() => rmSync(out, { recursive: true, force: true }));

  const lint = async (...migrations: Array<new () => MigrationInterface>) =>
    squawk(await writeMigrationSql({ probe: migrations }, out));

  it('finds no broken rule in the migrations of either database', async () => {
    const result = await lintMigrations(SERVICE_MIGRATIONS, join(out, 'services'));
    expect(result.files.length).toBe(Object.values(SERVICE_MIGRATIONS).flat().length);
    expect([result.status, result.output]).toEqual([0, expect.stringContaining('Found 0 issues')]);
  });

  it('fails a new migration that builds an index on an existing table in place', async () => {
    const result = await lint(CreateGrowing1800000000000, IndexGrowingInPlace1800000000001);
    expect(result.status).not.toBe(0);
    expect(result.output).toContain('require-concurrent-index-creation');
  });

  it('passes the same index built CONCURRENTLY outside a transaction, or excused beside its statement', async () => {
    expect((await lint(CreateGrowing1800000000000, IndexGrowingConcurrently1800000000001)).output).toContain(
      'Found 0 issues',
    );
    expect((await lint(CreateGrowing1800000000000, IndexGrowingExcused1800000000001)).output).toContain(
      'Found 0 issues',
    );
  });

  it("lints each migration with the runner's timeouts first, as the runner sends them", async () => {
    const [created, indexed] = await writeMigrationSql(
      { probe: [CreateGrowing1800000000000, IndexGrowingConcurrently1800000000001] },
      out,
    );
    expect(readFileSync(created, 'utf8')).toMatch(
      /^BEGIN;\n\nSET LOCAL lock_timeout = \d+;\n\nSET LOCAL statement_timeout = \d+;\n\nCREATE TABLE growing/m,
    );
    expect(readFileSync(indexed, 'utf8')).toMatch(
      /^SET lock_timeout = \d+;\n\nSET statement_timeout = \d+;\n\nSET statement_timeout = 0;\n\nCREATE INDEX CONCURRENTLY/m,
    );
  });

  it('lists exceptions only for migrations that exist', () => {
    const names = Object.values(SERVICE_MIGRATIONS)
      .flat()
      .map((migration) => (migration as { name: string }).name);
    expect(LINT_EXCEPTIONS.filter((exception) => !names.includes(exception.migration))).toEqual([]);
  });
});
