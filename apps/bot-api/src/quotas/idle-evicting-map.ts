/**
 * A Map that forgets what nobody used for `idleMs` and never holds more than `maxEntries` (the least
 * recently used goes first). For per-process objects built from request input, such as one rate
 * limiter per distinct quota, so that a stream of distinct values cannot grow memory without bound.
 */
export class IdleEvictingMap<K, V> {
  private readonly entries = new Map<K, { value: V; usedAt: number }>();
  private sweptAt: number;

  constructor(
    private readonly options: { maxEntries: number; idleMs: number },
    private readonly now: () => number = Date.now,
  ) {
    this.sweptAt = now();
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value of `key`, built by `create` when absent; marks it used. */
  getOrCreate(key: K, create: () => V): V {
    const at = this.now();
    this.sweepIdle(at);
    const entry = this.entries.get(key);
    // Deleted and set again so Map's insertion order is the order of last use.
    if (entry) this.entries.delete(key);
    const value = entry ? entry.value : create();
    this.entries.set(key, { value, usedAt: at });
    if (this.entries.size > this.options.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
    return value;
  }

  /** At most once per idle period, so a call costs O(1) amortised. */
  private sweepIdle(at: number): void {
    if (at - this.sweptAt < this.options.idleMs) return;
    this.sweptAt = at;
    for (const [key, entry] of this.entries) {
      if (at - entry.usedAt < this.options.idleMs) break;
      this.entries.delete(key);
    }
  }
}
