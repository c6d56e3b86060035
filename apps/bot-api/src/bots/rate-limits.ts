import type { BotConfig } from '../config/bot.config';
import type { BotRateLimits } from './entities/bot.entity';

export type EffectiveRateLimits = Required<BotRateLimits>;

export function defaultRateLimits(config: BotConfig): EffectiveRateLimits {
  return {
    send_per_sec: config.BOT_DEFAULT_SEND_PER_SEC,
    send_per_min: config.BOT_DEFAULT_SEND_PER_MIN,
    send_per_day: config.BOT_DEFAULT_SEND_PER_DAY,
  };
}

/** The quotas that apply to a bot: its own values, each unset one falling back to the global default. */
export function effectiveRateLimits(limits: BotRateLimits | null | undefined, config: BotConfig): EffectiveRateLimits {
  const defaults = defaultRateLimits(config);
  return {
    send_per_sec: limits?.send_per_sec ?? defaults.send_per_sec,
    send_per_min: limits?.send_per_min ?? defaults.send_per_min,
    send_per_day: limits?.send_per_day ?? defaults.send_per_day,
  };
}

/** Only the keys that were given, so a later change of the global default still reaches unset ones. */
export function compactRateLimits(limits: BotRateLimits | null | undefined): BotRateLimits {
  const out: BotRateLimits = {};
  if (limits?.send_per_sec != null) out.send_per_sec = limits.send_per_sec;
  if (limits?.send_per_min != null) out.send_per_min = limits.send_per_min;
  if (limits?.send_per_day != null) out.send_per_day = limits.send_per_day;
  return out;
}
