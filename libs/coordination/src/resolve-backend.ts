import { Logger } from '@nestjs/common';
import type { CoordinationBackend, ServiceConfig } from '@app/platform';
import Redis from 'ioredis';

/** `host:port` of a Redis URL, for log lines (a URL may carry a password). */
export function redisAddress(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '6379'}`;
  } catch {
    return 'an unparsable REDIS_URL';
  }
}

/** Whether a Redis server answers PING at `url` within `timeoutMs`; never throws. */
export async function redisAnswers(url: string, timeoutMs = 1000): Promise<boolean> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

/**
 * Settles where this process keeps queues, rate limits and wake-ups, and writes it into the config.
 * An explicit COORDINATION_BACKEND wins (production validation requires one); otherwise Redis is used
 * when it answers, and the PostgreSQL-only mode when it does not, so a laptop with nothing but the
 * database (or the embedded one) runs the whole platform.
 */
export async function resolveCoordinationBackend(
  config: ServiceConfig,
  logger: Pick<Logger, 'log' | 'warn'> = new Logger('Coordination'),
): Promise<CoordinationBackend> {
  if (config.COORDINATION_BACKEND) {
    logger.log(`coordination backend: ${describeBackend(config.COORDINATION_BACKEND, config)} (COORDINATION_BACKEND)`);
    return config.COORDINATION_BACKEND;
  }
  const answers = await redisAnswers(config.REDIS_URL);
  config.COORDINATION_BACKEND = answers ? 'redis' : 'postgres';
  if (answers) {
    logger.log(`coordination backend: ${describeBackend('redis', config)} (it answered; COORDINATION_BACKEND unset)`);
  } else {
    logger.warn(
      `no Redis answers at ${redisAddress(config.REDIS_URL)}: running in the PostgreSQL-only mode ` +
        '(queues, rate limits and wake-ups in PostgreSQL); set COORDINATION_BACKEND to choose explicitly',
    );
  }
  return config.COORDINATION_BACKEND;
}

function describeBackend(backend: CoordinationBackend, config: ServiceConfig): string {
  return backend === 'redis' ? `Redis at ${redisAddress(config.REDIS_URL)}` : `PostgreSQL (database ${config.DB_NAME})`;
}
