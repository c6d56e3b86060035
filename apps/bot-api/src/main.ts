import 'reflect-metadata';
import { loadConfigOrExit, runHttpApp } from '@app/platform';
import { AppModule } from './app.module';
import { BotConfig } from './config/bot.config';

const config = loadConfigOrExit(BotConfig);
runHttpApp(AppModule.forRoot(config), config).catch((error: Error) => {
  console.error(`bot-api failed to start: ${error.message}`);
  process.exit(1);
});
