import { loadConfigOrExit, migrationCli, migrationConfigSchema } from '@app/platform';
import { voucherMigrations } from './migrations';

// Database settings only: the migration Job carries the database credentials and none of the app's secrets.
migrationCli(loadConfigOrExit(migrationConfigSchema('voucher')), voucherMigrations).catch((error: Error) => {
  console.error(`migration failed: ${error.message}`);
  process.exit(1);
});
