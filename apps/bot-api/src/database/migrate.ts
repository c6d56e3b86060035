import { loadConfigOrExit, migrationCli, migrationConfigSchema } from '@app/platform';
import { botMigrations } from './migrations';

// Database settings only: the migration Job carries the database credentials and none of the app's secrets.
migrationCli(loadConfigOrExit(migrationConfigSchema('bot')), botMigrations).catch((error: Error) => {
  console.error(`migration failed: ${error.message}`);
  process.exit(1);
});
