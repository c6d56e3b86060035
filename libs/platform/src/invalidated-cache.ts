import { Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import type { ChannelBus } from './channel-bus';

export interface InvalidatedCacheOptions {
  /** Used in log lines. */
  name: string;
  /** How long an entry is served; 0 turns the cache off. */
  ttlMs: number;
  /** The channel that carries invalidations between the replicas. */
  channel: string;
  bus: ChannelBus;
  /** Bounds memory however many distinct keys call; the least recently used entry goes first. */
  maxEntries?: number;
}

interface Entry<V> {
  value: V;
  groups: readonly string[];
}

/**
 * An in-process cache for rows that are read on every request and rarely change (credentials).
 * Each entry belongs to one or more groups (a token id, its owner's id); `invalidate(group)` after
 * the commit of a change drops the group's entries here at once and on every other instance
 * through the channel bus (Redis pub/sub or PostgreSQL LISTEN/NOTIFY). While the channel is not
 * listened to (backend down, reconnecting) nothing is served and everything cached is dropped, so a
 * missed message can never keep a revoked credential working.
 */
export class InvalidatedCache<V> implements OnModuleInit, OnModuleDestroy {
  private readonly logger: Logger;
  private readonly entries: LRUCache<string, Entry<V>>;
  private readonly keysOfGroup = new Map<string, Set<string>>();
  /** Bumped by every invalidation; a read that started before one must not be stored. */
  private generation = 0;
  private subscribed = false;
  private stopped = false;

  constructor(private readonly options: InvalidatedCacheOptions) {
    this.logger = new Logger(options.name);
    this.entries = new LRUCache<string, Entry<V>>({
      max: options.maxEntries ?? 10_000,
      ttl: options.ttlMs,
      // However an entry leaves (expired, evicted, dropped), its groups stop pointing at it.
      dispose: (entry, key) => this.unlink(key, entry.groups),
    });
  }

  get enabled(): boolean {
    return this.options.ttlMs > 0;
  }

  onModuleInit(): Promise<void> {
    return this.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.stop();
  }

  async start(): Promise<void> {
    if (!this.enabled) return;
    const { bus, channel } = this.options;
    // Registered before subscribing: a subscription that fails now is listened to once the backend is back.
    bus.onConnectionChange((connected) => {
      if (!connected) this.suspend();
      else if (!this.stopped) this.subscribed = true;
    });
    try {
      await bus.subscribe(channel, (group) => this.drop(group));
      this.subscribed = bus.connected && !this.stopped;
    } catch (error) {
      this.logger.warn(`change channel not subscribed; rows are read from the database: ${String(error)}`);
    }
  }

  /** The bus is the process's; its owner closes it. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.suspend();
  }

  get(key: string): V | undefined {
    if (!this.subscribed) return undefined;
    return this.entries.get(key)?.value;
  }

  /** Call before reading the row from the database; pass the result to `put`. */
  readStarted(): number {
    return this.generation;
  }

  put(key: string, value: V, groups: readonly string[], startedAt: number): void {
    if (!this.subscribed || startedAt !== this.generation) return;
    this.entries.delete(key);
    this.entries.set(key, { value, groups });
    for (const group of groups) {
      const keys = this.keysOfGroup.get(group) ?? new Set<string>();
      keys.add(key);
      this.keysOfGroup.set(group, keys);
    }
  }

  /** After the commit of any change to the group's rows: here at once, elsewhere through the bus. */
  invalidate(group: string): void {
    this.drop(group);
    if (!this.enabled) return;
    this.options.bus.publish(this.options.channel, group).catch((error: Error) => {
      this.logger.warn(`change of ${group} not published: ${error.message}`);
    });
  }

  private drop(group: string): void {
    this.generation++;
    for (const key of [...(this.keysOfGroup.get(group) ?? [])]) this.entries.delete(key);
    this.keysOfGroup.delete(group);
  }

  private unlink(key: string, groups: readonly string[]): void {
    for (const group of groups) {
      const keys = this.keysOfGroup.get(group);
      keys?.delete(key);
      if (keys?.size === 0) this.keysOfGroup.delete(group);
    }
  }

  private suspend(): void {
    this.subscribed = false;
    this.generation++;
    this.entries.clear();
    this.keysOfGroup.clear();
  }
}
