import { LRUCache } from 'lru-cache';

/**
 * A map that forgets what nobody used for `idleMs` and never holds more than `maxEntries` (the least
 * recently used goes first). For per-process objects built from request input, such as one rate
 * limiter per distinct quota, so that a stream of distinct values cannot grow memory without bound.
 */
export class IdleEvictingMap<K extends NonNullable<unknown>, V extends NonNullable<unknown>> {
  private readonly entries: LRUCache<K, V>;
  private sweptAt: number;

  constructor(
    private readonly options: { maxEntries: number; idleMs: number },
    private readonly now: () => number = Date.now,
  ) {
    // A use renews the idle period; the clock is read on every look-up rather than once per millisecond.
    this.entries = new LRUCache<K, V>({
      max: options.maxEntries,
      ttl: options.idleMs,
      updateAgeOnGet: true,
      ttlResolution: 0,
      perf: { now },
    });
    this.sweptAt = now();
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value of `key`, built by `create` when absent or idle; marks it used. */
  getOrCreate(key: K, create: () => V): V {
    this.sweepIdle(this.now());
    let value = this.entries.get(key);
    if (value === undefined) {
      value = create();
      this.entries.set(key, value);
    }
    return value;
  }

  /** Idle entries are let go at most once per idle period, so a call costs O(1) amortised. */
  private sweepIdle(at: number): void {
    if (at - this.sweptAt < this.options.idleMs) return;
    this.sweptAt = at;
    this.entries.purgeStale();
  }
}
