import { describeWarmUp } from '@app/testing';
import { AppModule } from '../src/app.module';
import { BotConfig } from '../src/config/bot.config';
import { botMigrations } from '../src/database/migrations';

describeWarmUp({
  name: 'bot-api',
  service: 'bot',
  migrations: botMigrations,
  schema: BotConfig,
  module: (config) => AppModule.forRoot(config),
  warmed: 'sendMessage and a user message',
  rehearsed: 'a user message',
  warmedRoutes: ['/api/v1/bots/sendMessage', '/api/v1/bots/client/chats/:chatId/messages'],
});
