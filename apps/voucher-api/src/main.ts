import 'reflect-metadata';
import { loadConfigOrExit, runHttpApp } from '@app/platform';
import { AppModule } from './app.module';
import { VoucherConfig } from './config/voucher.config';

const config = loadConfigOrExit(VoucherConfig);
runHttpApp(AppModule.forRoot(config), config).catch((error: Error) => {
  console.error(`voucher-api failed to start: ${error.message}`);
  process.exit(1);
});
