import { loadConfig, ServiceConfig } from '@app/platform';
import { freePort } from '@app/testing';
import { redisAddress, resolveCoordinationBackend } from './resolve-backend';

function recorder() {
  const lines: string[] = [];
  return {
    lines,
    logger: { log: (line: string) => lines.push(line), warn: (line: string) => lines.push(`WARN ${line}`) },
  };
}

describe('choosing the coordination backend at boot', () => {
  it('keeps an explicit choice without probing Redis', async () => {
    const config = loadConfig(ServiceConfig, { COORDINATION_BACKEND: 'postgres', REDIS_URL: 'redis://127.0.0.1:6379' });
    const { lines, logger } = recorder();
    await expect(resolveCoordinationBackend(config, logger)).resolves.toBe('postgres');
    expect(lines).toEqual(['coordination backend: PostgreSQL (database postgres) (COORDINATION_BACKEND)']);
  });

  it('falls back to the PostgreSQL-only mode, with a warning, when nothing answers at REDIS_URL', async () => {
    const config = loadConfig(ServiceConfig, { REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
    const { lines, logger } = recorder();
    await expect(resolveCoordinationBackend(config, logger)).resolves.toBe('postgres');
    expect(config.coordinationBackend).toBe('postgres');
    expect(lines[0]).toMatch(/^WARN no Redis answers at 127\.0\.0\.1:\d+: running in the PostgreSQL-only mode/);
  });

  (process.env.TEST_REDIS_AVAILABLE === '0' ? it.skip : it)(
    'uses Redis when it answers and nothing was chosen',
    async () => {
      const config = loadConfig(ServiceConfig, { REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' });
      const { logger } = recorder();
      await expect(resolveCoordinationBackend(config, logger)).resolves.toBe('redis');
    },
  );

  it('never logs the password of a Redis URL', () => {
    expect(redisAddress('redis://:hunter2@cache.internal:6380/0')).toBe('cache.internal:6380');
  });
});
