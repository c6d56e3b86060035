import { ConfigError, loadConfig } from '@app/platform';
import { BotConfig, DEV_BOT_TOKEN_ENCRYPTION_KEY } from '../config/bot.config';

const production = {
  NODE_ENV: 'production',
  COORDINATION_BACKEND: 'redis',
  ACCOUNT_JWT_SECRET: 'a-production-secret-of-some-length',
  ACCOUNT_JWT_ISSUER: 'https://accounts.example.com',
  ACCOUNT_JWT_AUDIENCE: 'open-platform',
  WEBHOOK_SECRET_KEY: 'cd'.repeat(32),
  INTERNAL_API_TOKEN: 'ef'.repeat(32),
  FILE_URL_SIGNING_KEY: 'ef'.repeat(32),
  FILE_PUBLIC_BASE_URL: 'https://bots.example.com',
};

describe('BOT_TOKEN_ENCRYPTION_KEY', () => {
  it('has a development default of 64 hex characters', () => {
    expect(loadConfig(BotConfig, {}).BOT_TOKEN_ENCRYPTION_KEY).toBe(DEV_BOT_TOKEN_ENCRYPTION_KEY);
  });

  it('refuses the development default when NODE_ENV=production', () => {
    expect(() => loadConfig(BotConfig, production)).toThrow(/BOT_TOKEN_ENCRYPTION_KEY/);
    expect(
      loadConfig(BotConfig, { ...production, BOT_TOKEN_ENCRYPTION_KEY: 'ab'.repeat(32) }).BOT_TOKEN_ENCRYPTION_KEY,
    ).toBe('ab'.repeat(32));
  });

  it('refuses a key that is not 64 hexadecimal characters', () => {
    for (const key of ['abc', 'zz'.repeat(32), 'ab'.repeat(33)]) {
      expect(() => loadConfig(BotConfig, { BOT_TOKEN_ENCRYPTION_KEY: key })).toThrow(ConfigError);
    }
  });
});
