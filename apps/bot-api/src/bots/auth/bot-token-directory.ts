import { Injectable } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { BotsStore } from '../bots.store';

/** Hex characters of a hash kept: 64 bits, so a made-up token matches a kept one with a chance of n / 2^64. */
const PREFIX_LENGTH = 16;
/** Loads start at least this far apart, and at least RELOAD_SPACING times the last load's duration apart. */
const MIN_RELOAD_INTERVAL_MS = 250;
const RELOAD_SPACING = 20;

/**
 * Which token hashes are current, held in memory (a 16-character prefix of each, about 60 bytes per
 * bot): a token it does not hold names no bot, and is refused without a look-up of its own. A made-up
 * token therefore costs the database nothing, however many addresses send them; the directory's loads
 * are the only cost, one statement at a time, at most one every MIN_RELOAD_INTERVAL_MS (and never more
 * than 1/RELOAD_SPACING of the time, however many bots there are).
 *
 * A token issued after the last load (here or by another replica) is not held yet: the answer "not
 * current" is only given by a load that started after the question was asked, which sees every token
 * committed before it. So a real token is never refused; the first call with a token that is newer than
 * the directory waits for the next load, at most a reload interval while made-up tokens keep arriving.
 */
@Injectable()
export class BotTokenDirectory {
  private prefixes = new Set<string>();
  /** performance.now() when the last completed load was sent: every token committed before it is held. */
  private loadedAsOf = Number.NEGATIVE_INFINITY;
  private earliestNextLoad = 0;
  private loading: { startedAt: number; done: Promise<void> } | undefined;

  constructor(private readonly bots: BotsStore) {}

  /**
   * Whether the token with this hash may be current, decided by a load that started after `askedAt`
   * (performance.now(), taken once the request arrived) when the directory does not hold it yet.
   */
  async mayHold(tokenHash: string, askedAt: number): Promise<boolean> {
    const prefix = tokenHash.slice(0, PREFIX_LENGTH);
    if (this.prefixes.has(prefix)) return true;
    await this.loadStartedAfter(askedAt);
    return this.prefixes.has(prefix);
  }

  /** Resolves once a load sent at or after `askedAt` has completed; all waiting callers share each load. */
  private async loadStartedAfter(askedAt: number): Promise<void> {
    for (;;) {
      // Stryker disable next-line EqualityOperator: two readings of performance.now() are never equal
      if (this.loadedAsOf >= askedAt) return;
      const current = this.loading;
      // Stryker disable next-line EqualityOperator: two readings of performance.now() are never equal
      if (current && current.startedAt >= askedAt) return current.done;
      if (current) {
        await current.done.catch(() => undefined);
        continue;
      }
      const wait = this.earliestNextLoad - performance.now();
      // Stryker disable next-line EqualityOperator: a wait of exactly 0 ms is never computed from two clock readings
      if (wait > 0) {
        await delay(wait);
        continue;
      }
      this.load();
    }
  }

  private load(): void {
    const startedAt = performance.now();
    const done = this.bots
      .currentTokenHashPrefixes(PREFIX_LENGTH)
      .then((joined) => {
        const prefixes = new Set<string>();
        // Stryker disable next-line EqualityOperator: one more turn adds the empty prefix, which no hash has
        for (let at = 0; at < joined.length; at += PREFIX_LENGTH) prefixes.add(joined.slice(at, at + PREFIX_LENGTH));
        this.prefixes = prefixes;
        this.loadedAsOf = startedAt;
      })
      .finally(() => {
        const took = performance.now() - startedAt;
        // Stryker disable next-line ArithmeticOperator: spacing by a load's own duration shows only for loads slower than 12.5 ms
        this.earliestNextLoad = startedAt + Math.max(MIN_RELOAD_INTERVAL_MS, took * RELOAD_SPACING);
        this.loading = undefined;
      });
    this.loading = { startedAt, done };
  }
}
