import { AccountAuthConfig } from '@app/auth';

/** Environment of bot-api; every variable has a development default. */
export class BotConfig extends AccountAuthConfig {
  override PORT = 3002;
  override DB_NAME = 'bot';
}
