import type { BotConfig } from '../config/bot.config';
import { compactRateLimits, effectiveRateLimits } from './rate-limits';

const config = {
  BOT_DEFAULT_SEND_PER_SEC: 30,
  BOT_DEFAULT_SEND_PER_MIN: 1200,
  BOT_DEFAULT_SEND_PER_DAY: 100000,
} as BotConfig;

describe('bot rate limits', () => {
  it('falls back to the global default for every unset value', () => {
    expect(effectiveRateLimits({ send_per_min: 60 }, config)).toEqual({
      send_per_sec: 30,
      send_per_min: 60,
      send_per_day: 100000,
    });
    expect(effectiveRateLimits(null, config)).toEqual({ send_per_sec: 30, send_per_min: 1200, send_per_day: 100000 });
  });

  it('stores only the values that were given', () => {
    expect(compactRateLimits({ send_per_sec: 5, send_per_min: undefined })).toEqual({ send_per_sec: 5 });
    expect(compactRateLimits(null)).toEqual({});
  });
});
