import { Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type Redis from 'ioredis';
import { createRedis } from './redis';

export interface InvalidatedCacheOptions {
  /** Used for the subscriber connection's name and in log lines. */
  name: string;
  /** How long an entry is served; 0 turns the cache off. */
  ttlMs: number;
  /** Pub/sub channel names are not covered by ioredis' keyPrefix, so pass the prefixed name. */
  channel: string;
  redisUrl: string;
  /** The shared client, used to publish invalidations. */
  publisher: Redis;
  /** Bounds memory however many distinct keys call; the oldest entry goes first. */
  maxEntries?: number;
}

interface Entry<V> {
  value: V;
  groups: readonly string[];
  expiresAt: number;
}

/**
 * An in-process cache for rows that are read on every request and rarely change (credentials).
 * Each entry belongs to one or more groups (a token id, its owner's id); `invalidate(group)` after
 * the commit of a change drops the group's entries here at once and on every other instance
 * through Redis pub/sub. While the channel is not subscribed (Redis down, reconnecting) nothing is
 * served, so a missed message can never keep a revoked credential working.
 */
export class InvalidatedCache<V> implements OnModuleInit, OnModuleDestroy {
  private readonly logger: Logger;
  private readonly entries = new Map<string, Entry<V>>();
  private readonly keysOfGroup = new Map<string, Set<string>>();
  /** Bumped by every invalidation; a read that started before one must not be stored. */
  private generation = 0;
  private subscribed = false;
  private subscriber?: Redis;

  constructor(private readonly options: InvalidatedCacheOptions) {
    this.logger = new Logger(options.name);
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
    // A connection in subscriber mode can run no other command, hence a dedicated one.
    const subscriber = createRedis(this.options.redisUrl, `${this.options.name}-changes`);
    this.subscriber = subscriber;
    subscriber.on('message', (_channel: string, group: string) => this.drop(group));
    subscriber.on('error', (error: Error) => this.logger.warn(`change subscriber: ${error.message}`));
    subscriber.on('close', () => this.suspend());
    subscriber.on('ready', () => void this.subscribe(subscriber));
    await this.subscribe(subscriber);
  }

  async stop(): Promise<void> {
    this.suspend();
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
  }

  get(key: string): V | undefined {
    if (!this.subscribed) return undefined;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.forget(key);
      return undefined;
    }
    return entry.value;
  }

  /** Call before reading the row from the database; pass the result to `put`. */
  readStarted(): number {
    return this.generation;
  }

  put(key: string, value: V, groups: readonly string[], startedAt: number): void {
    if (!this.subscribed || startedAt !== this.generation) return;
    this.forget(key);
    if (this.entries.size >= (this.options.maxEntries ?? 10_000)) {
      this.forget(this.entries.keys().next().value as string);
    }
    this.entries.set(key, { value, groups, expiresAt: Date.now() + this.options.ttlMs });
    for (const group of groups) {
      const keys = this.keysOfGroup.get(group) ?? new Set<string>();
      keys.add(key);
      this.keysOfGroup.set(group, keys);
    }
  }

  /** After the commit of any change to the group's rows: here at once, elsewhere through Redis. */
  invalidate(group: string): void {
    this.drop(group);
    if (!this.enabled) return;
    this.options.publisher.publish(this.options.channel, group).catch((error: Error) => {
      this.logger.warn(`change of ${group} not published: ${error.message}`);
    });
  }

  private drop(group: string): void {
    this.generation++;
    for (const key of this.keysOfGroup.get(group) ?? []) this.forget(key);
    this.keysOfGroup.delete(group);
  }

  private forget(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    for (const group of entry.groups) {
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

  private async subscribe(subscriber: Redis): Promise<void> {
    try {
      await subscriber.subscribe(this.options.channel);
      this.subscribed = true;
    } catch (error) {
      this.logger.warn(`change channel not subscribed; rows are read from the database: ${String(error)}`);
    }
  }
}
