import { loadConfig } from '@app/platform';
import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { BotConfig } from '../config/bot.config';
import { SendQuotaService } from './send-quota.service';

describe('SendQuotaService', () => {
  const config = loadConfig(BotConfig, {
    ...process.env,
    REDIS_URL: 'redis://127.0.0.1:6379',
    REDIS_KEY_PREFIX: `test:${randomBytes(4).toString('hex')}:`,
  });
  const service = new SendQuotaService(config);
  afterAll(async () => {
    await service.onModuleDestroy();
    const redis = new Redis(config.REDIS_URL);
    const keys = await redis.keys(`${config.REDIS_KEY_PREFIX}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('defect 9: keeps a bounded number of limiters however many distinct rate_limits bots send with', async () => {
    for (let perDay = 1000; perDay < 2200; perDay++) {
      await service.consume({ id: `bot-${perDay}`, rateLimits: { send_per_day: perDay } });
    }
    expect(service['limiters'].size).toBeLessThanOrEqual(1000);
  });
});
