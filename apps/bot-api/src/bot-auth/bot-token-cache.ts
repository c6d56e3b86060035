import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { createRedis, REDIS } from '@app/platform';
import type Redis from 'ioredis';
import type { Bot } from '../bots/entities/bot.entity';
import { BotConfig } from '../config/bot.config';

/** Bounds memory however many distinct tokens call; the oldest entry goes first. */
const MAX_ENTRIES = 10_000;

interface Entry {
  bot: Bot;
  expiresAt: number;
}

/** Pub/sub channel names are not covered by ioredis' keyPrefix, so the channel carries the prefix itself. */
export function botChangesChannel(config: BotConfig): string {
  return `${config.REDIS_KEY_PREFIX}bot-api:bot-changed`;
}

/**
 * Token hash → bot, kept for BOT_TOKEN_CACHE_MS so a bot-token call needs no database read.
 * Every change to a bot row (token rotation or revocation, status, webhook mode, profile) calls
 * `invalidate` after its commit: the entry is dropped here at once and on every other instance
 * through Redis. While the change channel is not subscribed (Redis down, reconnecting) nothing is
 * served from the cache, so a missed message can never keep a revoked token working.
 */
@Injectable()
export class BotTokenCache implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(BotTokenCache.name);
  private readonly entries = new Map<string, Entry>();
  private readonly hashOfBot = new Map<string, string>();
  /** Bumped by every invalidation; a read that started before one must not be stored. */
  private generation = 0;
  private subscribed = false;
  private subscriber?: Redis;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly config: BotConfig,
  ) {}

  get enabled(): boolean {
    return this.config.BOT_TOKEN_CACHE_MS > 0;
  }

  async onModuleInit(): Promise<void> {
    if (!this.enabled) return;
    // A connection in subscriber mode can run no other command, hence a dedicated one.
    const subscriber = createRedis(this.config.REDIS_URL, 'bot-api-bot-changes');
    this.subscriber = subscriber;
    subscriber.on('message', (_channel: string, botId: string) => this.drop(botId));
    subscriber.on('error', (error: Error) => this.logger.warn(`bot change subscriber: ${error.message}`));
    subscriber.on('close', () => this.suspend());
    subscriber.on('ready', () => void this.subscribe(subscriber));
    await this.subscribe(subscriber);
  }

  async onModuleDestroy(): Promise<void> {
    this.suspend();
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
  }

  /**
   * The cached bot of this token hash, if fresh. Only hashes that matched a stored hash in a
   * constant-time compare are ever put here, and a SHA-256 key tells a timing probe nothing.
   */
  get(tokenHash: string): Bot | undefined {
    if (!this.subscribed) return undefined;
    const entry = this.entries.get(tokenHash);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.forget(tokenHash, entry.bot.id);
      return undefined;
    }
    return entry.bot;
  }

  /** Call before reading the bot from the database; pass the result to `put`. */
  readStarted(): number {
    return this.generation;
  }

  put(tokenHash: string, bot: Bot, startedAt: number): void {
    if (!this.subscribed || startedAt !== this.generation) return;
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value as string;
      this.forget(oldest, this.entries.get(oldest)!.bot.id);
    }
    this.entries.set(tokenHash, { bot, expiresAt: Date.now() + this.config.BOT_TOKEN_CACHE_MS });
    this.hashOfBot.set(bot.id, tokenHash);
  }

  /** After the commit of any change to the bot's row: here at once, elsewhere through Redis. */
  invalidate(botId: string): void {
    this.drop(botId);
    if (!this.enabled) return;
    this.redis.publish(botChangesChannel(this.config), botId).catch((error: Error) => {
      this.logger.warn(`bot change of ${botId} not published: ${error.message}`);
    });
  }

  private drop(botId: string): void {
    this.generation++;
    const hash = this.hashOfBot.get(botId);
    if (hash !== undefined) this.forget(hash, botId);
  }

  private forget(tokenHash: string, botId: string): void {
    this.entries.delete(tokenHash);
    if (this.hashOfBot.get(botId) === tokenHash) this.hashOfBot.delete(botId);
  }

  private suspend(): void {
    this.subscribed = false;
    this.generation++;
    this.entries.clear();
    this.hashOfBot.clear();
  }

  private async subscribe(subscriber: Redis): Promise<void> {
    try {
      await subscriber.subscribe(botChangesChannel(this.config));
      this.subscribed = true;
    } catch (error) {
      this.logger.warn(`bot change channel not subscribed; bot tokens are read from the database: ${String(error)}`);
    }
  }
}
