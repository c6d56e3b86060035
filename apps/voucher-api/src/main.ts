import './tracing';
import 'reflect-metadata';
import { resolveCoordinationBackend } from '@app/coordination';
import { loadConfigOrExit, runHttpApp, setupOpenApi } from '@app/platform';
import { VOUCHER_API_DOCS } from './api-docs';
import { AppModule } from './app.module';
import { VoucherConfig } from './config/voucher.config';

const config = loadConfigOrExit(VoucherConfig, 'voucher-api');
resolveCoordinationBackend(config)
  .then(() => runHttpApp(AppModule.forRoot(config), config, (app) => setupOpenApi(app, VOUCHER_API_DOCS)))
  .catch((error: Error) => {
    console.error(`voucher-api failed to start: ${error.message}`);
    process.exit(1);
  });
