import { loadConfigOrExit, migrationCli } from '@app/platform';
import { BotConfig } from '../config/bot.config';
import { botMigrations } from './migrations';

migrationCli(loadConfigOrExit(BotConfig), botMigrations).catch((error: Error) => {
  console.error(`migration failed: ${error.message}`);
  process.exit(1);
});
