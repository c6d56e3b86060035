import type { CreatedWithin } from './webhook-deliveries.store';

/** Every day of the delivery tables: what a batch reads when one of its deliveries' days is unknown. */
export const EVERY_DAY: Readonly<CreatedWithin> = Object.freeze({ since: '-infinity', until: 'infinity' });

/**
 * A JavaScript Date holds milliseconds where PostgreSQL keeps microseconds, so a created_at read back
 * may be a fraction of a millisecond early or late; the bounds leave a second on each side.
 */
const MARGIN_MS = 1000;

/**
 * The range of creation times that holds each of a batch's deliveries, from the created_at each job
 * carries (ISO 8601). An unknown time (a job of an older producer carries none, or one that does not
 * parse) widens the range to every day, as does an empty batch.
 */
export function createdWithin(times: ReadonlyArray<string | undefined>): CreatedWithin {
  let earliest = Infinity;
  let latest = -Infinity;
  for (const time of times) {
    const ms = time === undefined ? NaN : new Date(time).getTime();
    if (Number.isNaN(ms)) return EVERY_DAY;
    if (ms < earliest) earliest = ms;
    if (ms > latest) latest = ms;
  }
  if (earliest > latest) return EVERY_DAY;
  return {
    since: new Date(earliest - MARGIN_MS).toISOString(),
    until: new Date(latest + MARGIN_MS).toISOString(),
  };
}
