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
    // 1 200 distinct limits, sent 100 at a time: one by one they were 1 200 store round trips in a row,
    // which a loaded CI box could stretch past the test's timeout.
    for (let first = 1000; first < 2200; first += 100) {
      const perDays = Array.from({ length: 100 }, (_, offset) => first + offset);
      await Promise.all(
        perDays.map((perDay) => service.consume({ id: `bot-${perDay}`, rateLimits: { send_per_day: perDay } })),
      );
    }
    expect(service['limiters'].size).toBeLessThanOrEqual(1000);
  });
});
