import type { MigrationList } from '@app/platform';
import { createEmptyDatabase, testDataSource } from './test-database';

export interface MigrationRoundTrip {
  applied: number;
  tablesAfterUp: string[];
  tablesAfterDown: string[];
  tablesAfterSecondUp: string[];
}

/** Runs every migration up on an empty database, every one down again, then up once more. */
export async function migrationRoundTrip(service: string, migrations: MigrationList): Promise<MigrationRoundTrip> {
  const database = await createEmptyDatabase(service);
  const dataSource = testDataSource(database.name, migrations);
  await dataSource.initialize();
  const tables = async () =>
    (
      await dataSource.query(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'migrations' ORDER BY 1`,
      )
    ).map((row: { table_name: string }) => row.table_name);
  try {
    const applied = (await dataSource.runMigrations()).length;
    const tablesAfterUp = await tables();
    for (let i = 0; i < applied; i++) await dataSource.undoLastMigration();
    const tablesAfterDown = await tables();
    await dataSource.runMigrations();
    return { applied, tablesAfterUp, tablesAfterDown, tablesAfterSecondUp: await tables() };
  } finally {
    await dataSource.destroy();
    await database.drop();
  }
}
