import { loadConfig } from '@app/platform';
import { describeEachBackend, testRateLimitStores } from '@app/testing';
import { BotConfig } from '../config/bot.config';
import { SendQuotaService } from './send-quota.service';

describeEachBackend('SendQuotaService', (backend) => {
  const config = loadConfig(BotConfig, process.env);
  const stores = testRateLimitStores(backend);
  afterAll(() => stores.close());

  it('defect 9: keeps a bounded number of limiters however many distinct rate_limits bots send with', async () => {
    const service = new SendQuotaService(config, await stores.replica());
    for (let perDay = 1000; perDay < 2200; perDay++) {
      await service.consume({ id: `bot-${perDay}`, rateLimits: { send_per_day: perDay } });
    }
    expect(service['limiters'].size).toBeLessThanOrEqual(1000);
  });
});
