import { ConfigError, loadConfig } from '@app/platform';
import { BotConfig } from '../../config/bot.config';

const production = {
  NODE_ENV: 'production',
  COORDINATION_BACKEND: 'redis',
  ACCOUNT_JWT_SECRET: 'a-production-secret-of-some-length',
  ACCOUNT_JWT_ISSUER: 'https://accounts.example.com',
  ACCOUNT_JWT_AUDIENCE: 'open-platform',
  WEBHOOK_SECRET_KEY: 'cd'.repeat(32),
  BOT_TOKEN_ENCRYPTION_KEY: 'ab'.repeat(32),
  INTERNAL_API_TOKEN: 'ef'.repeat(32),
  FILE_PUBLIC_BASE_URL: 'https://bots.example.com',
};

describe('file storage configuration', () => {
  it('defaults to the disk driver with lifetimes that cover the Update retention', () => {
    const config = loadConfig(BotConfig, {});
    expect(config.FILE_STORAGE_DRIVER).toBe('disk');
    expect(config.FILE_UPDATE_URL_TTL_SECONDS).toBeGreaterThanOrEqual(config.UPDATES_RETENTION_HOURS * 3600);
  });

  it('signs the file.url inside Updates for the Update retention by default, not seven days (defect 8: links outlived a deleted message by a week)', () => {
    const config = loadConfig(BotConfig, {});
    expect(config.FILE_UPDATE_URL_TTL_SECONDS).toBe(config.UPDATES_RETENTION_HOURS * 3600);
  });

  it('refuses an unknown driver, and the S3 driver without a bucket or with half a credential', () => {
    expect(() => loadConfig(BotConfig, { FILE_STORAGE_DRIVER: 'ftp' })).toThrow(/FILE_STORAGE_DRIVER/);
    expect(() => loadConfig(BotConfig, { FILE_STORAGE_DRIVER: 's3' })).toThrow(/FILE_S3_BUCKET/);
    expect(() =>
      loadConfig(BotConfig, { FILE_STORAGE_DRIVER: 's3', FILE_S3_BUCKET: 'b', FILE_S3_ACCESS_KEY_ID: 'id' }),
    ).toThrow(/FILE_S3_SECRET_ACCESS_KEY/);
    expect(
      loadConfig(BotConfig, { FILE_STORAGE_DRIVER: 's3', FILE_S3_BUCKET: 'b', FILE_S3_FORCE_PATH_STYLE: 'true' })
        .FILE_S3_FORCE_PATH_STYLE,
    ).toBe(true);
  });

  it('refuses Update URLs that would expire before the Updates do, and lifetimes beyond seven days', () => {
    expect(() => loadConfig(BotConfig, { FILE_UPDATE_URL_TTL_SECONDS: '3600' })).toThrow(/FILE_UPDATE_URL_TTL_SECONDS/);
    expect(() => loadConfig(BotConfig, { FILE_DOWNLOAD_URL_TTL_SECONDS: '604801' })).toThrow(ConfigError);
    expect(() => loadConfig(BotConfig, { FILE_PUBLIC_BASE_URL: 'ftp://x' })).toThrow(/FILE_PUBLIC_BASE_URL/);
  });

  it('refuses the development signing key in production with the disk driver only', () => {
    expect(() => loadConfig(BotConfig, production)).toThrow(/FILE_URL_SIGNING_KEY/);
    expect(loadConfig(BotConfig, { ...production, FILE_URL_SIGNING_KEY: 'ef'.repeat(32) }).FILE_STORAGE_DRIVER).toBe(
      'disk',
    );
    expect(
      loadConfig(BotConfig, { ...production, FILE_STORAGE_DRIVER: 's3', FILE_S3_BUCKET: 'files' }).FILE_STORAGE_DRIVER,
    ).toBe('s3');
  });

  it('refuses an http: FILE_PUBLIC_BASE_URL in production with the disk driver, whose URLs carry the only credential (defect 10)', () => {
    const signed = { ...production, FILE_URL_SIGNING_KEY: 'ef'.repeat(32) };
    expect(() => loadConfig(BotConfig, { ...signed, FILE_PUBLIC_BASE_URL: 'http://bots.example.com' })).toThrow(
      /FILE_PUBLIC_BASE_URL: must be https:/,
    );
    expect(loadConfig(BotConfig, signed).FILE_PUBLIC_BASE_URL).toBe('https://bots.example.com');
    expect(loadConfig(BotConfig, { FILE_PUBLIC_BASE_URL: 'http://localhost:3002' }).NODE_ENV).toBe('development');
  });
});
