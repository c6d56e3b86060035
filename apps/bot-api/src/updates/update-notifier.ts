import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { REDIS } from '@app/platform';
import type Redis from 'ioredis';
import { DataSource, EntityManager } from 'typeorm';
import { BotConfig } from '../config/bot.config';
import { AfterCommit } from '../database/after-commit';

/** Pub/sub channel names are not covered by ioredis' keyPrefix, so every channel carries the prefix itself. */
export function updatesChannel(config: BotConfig): string {
  return `${config.REDIS_KEY_PREFIX}bot-updates:new`;
}

export function pollsChannel(config: BotConfig): string {
  return `${config.REDIS_KEY_PREFIX}bot-updates:polls`;
}

/**
 * Announces "bot X has a new Update" on Redis only after the writing transaction committed, so a
 * woken poller always finds the row; a rolled-back transaction announces nothing.
 */
@Injectable()
export class UpdateNotifier {
  private readonly afterCommit: AfterCommit<string>;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly config: BotConfig,
  ) {
    this.afterCommit = new AfterCommit(dataSource, (botIds) => this.publish(new Set(botIds)));
  }

  notifyAfterCommit(manager: EntityManager, botId: string): void {
    this.afterCommit.add(manager, [botId]);
  }

  private publish(botIds: Iterable<string>): void {
    for (const botId of botIds) {
      // A lost announcement only delays a waiting poll until its timeout; the row itself is safe in Postgres.
      this.redis.publish(updatesChannel(this.config), botId).catch(() => undefined);
    }
  }
}
