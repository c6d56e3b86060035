import { EnvBoolean, ServiceConfig } from '@app/platform';
import { IsOptional } from 'class-validator';

/**
 * Environment of bot-dispatcher. It works on the bot database that bot-api migrates, so it neither
 * creates that database nor runs migrations by default.
 */
export class DispatcherConfig extends ServiceConfig {
  override PORT = 3003;
  override DB_NAME = 'bot';
  override MIGRATIONS_RUN = false;

  @IsOptional()
  @EnvBoolean()
  override DB_AUTO_CREATE?: boolean = false;
}
