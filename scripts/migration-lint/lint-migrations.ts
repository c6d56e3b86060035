/**
 * `npm run lint:migrations`: every migration of both databases through squawk, the linter for
 * migrations that would lock a busy table. The SQL each migration runs is recorded on a scratch database
 * (migration-sql.ts) and written, one file per migration, under tmp/migration-sql/ (git-ignored:
 * rebuilt from the migrations on every run, so it is never stale), then linted with the rules of
 * `.squawk.toml`. An exception is a `-- squawk-ignore <rule> -- <reason>` line in the migration's SQL,
 * right above the statement it excuses.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { MigrationList } from '@app/platform';
import { createEmptyDatabase, testDatabaseSettings } from '@app/testing';
import { botMigrations } from '../../apps/bot-api/src/database/migrations';
import { voucherMigrations } from '../../apps/voucher-api/src/database/migrations';
import { recordMigrationSql, sqlFile } from './migration-sql';

const REPO_ROOT = resolve(__dirname, '../..');
export const SQUAWK_CONFIG = join(REPO_ROOT, '.squawk.toml');
const SQUAWK = join(REPO_ROOT, 'node_modules', '.bin', 'squawk');

/** The migrations of each database, as the apps run them. */
export const SERVICE_MIGRATIONS: Record<string, MigrationList> = { voucher: voucherMigrations, bot: botMigrations };

export interface LintResult {
  files: string[];
  /** squawk's exit status: 0 when no rule is broken. */
  status: number;
  output: string;
}

/** Records each service's migrations into `outDir/<service>/NNN-<name>.sql` and returns the files, in order. */
export async function writeMigrationSql(services: Record<string, MigrationList>, outDir: string): Promise<string[]> {
  rmSync(outDir, { recursive: true, force: true });
  const files: string[] = [];
  for (const [service, migrations] of Object.entries(services)) {
    const scratch = await createEmptyDatabase(`${service}_lint`);
    try {
      const recorded = await recordMigrationSql(testDatabaseSettings(scratch.name, 2), migrations);
      mkdirSync(join(outDir, service), { recursive: true });
      recorded.forEach((migration, index) => {
        const file = join(outDir, service, `${String(index + 1).padStart(3, '0')}-${migration.name}.sql`);
        writeFileSync(file, sqlFile(migration));
        files.push(file);
      });
    } finally {
      await scratch.drop();
    }
  }
  return files;
}

export function squawk(files: string[]): LintResult {
  const run = spawnSync(SQUAWK, ['--config', SQUAWK_CONFIG, ...files], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (run.error) throw run.error;
  return { files, status: run.status ?? 1, output: `${run.stdout}${run.stderr}` };
}

export async function lintMigrations(services = SERVICE_MIGRATIONS, outDir = join(REPO_ROOT, 'tmp', 'migration-sql')) {
  return squawk(await writeMigrationSql(services, outDir));
}

if (require.main === module) {
  lintMigrations()
    .then((result) => {
      process.stdout.write(result.output);
      const where = relative(REPO_ROOT, join(REPO_ROOT, 'tmp', 'migration-sql'));
      console.log(
        result.status === 0
          ? `squawk: ${result.files.length} migrations, no rule broken (their SQL: ${where}/)`
          : `squawk found migrations that can lock a busy table (their SQL: ${where}/)`,
      );
      process.exit(result.status);
    })
    .catch((error: Error) => {
      console.error(`lint:migrations failed: ${error.message}`);
      process.exit(1);
    });
}
