import { REPO_ROOT } from '@app/testing';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The dispatcher works on the schema bot-api migrates: bot-api's migration files build the test database. */
export async function botMigrations(): Promise<Function[]> {
  const dir = join(REPO_ROOT, 'apps/bot-api/src/database/migrations');
  const files = readdirSync(dir)
    .filter((name) => /^\d+-\w+\.ts$/.test(name))
    .sort();
  const modules: Array<Record<string, Function>> = await Promise.all(files.map((name) => import(join(dir, name))));
  return modules.flatMap((exported) => Object.values(exported));
}
