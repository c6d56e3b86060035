import './tracing';
import 'reflect-metadata';
import { resolveCoordinationBackend } from '@app/coordination';
import { loadConfigOrExit, runHttpApp, setupOpenApi } from '@app/platform';
import { BOT_API_DOCS } from './api-docs';
import { AppModule } from './app.module';
import { BotConfig } from './config/bot.config';

const config = loadConfigOrExit(BotConfig, 'bot-api');
resolveCoordinationBackend(config)
  .then(() => runHttpApp(AppModule.forRoot(config), config, (app) => setupOpenApi(app, BOT_API_DOCS)))
  .catch((error: Error) => {
    console.error(`bot-api failed to start: ${error.message}`);
    process.exit(1);
  });
