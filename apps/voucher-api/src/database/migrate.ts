import { loadConfigOrExit, migrationCli } from '@app/platform';
import { VoucherConfig } from '../config/voucher.config';
import { voucherMigrations } from './migrations';

migrationCli(loadConfigOrExit(VoucherConfig), voucherMigrations).catch((error: Error) => {
  console.error(`migration failed: ${error.message}`);
  process.exit(1);
});
