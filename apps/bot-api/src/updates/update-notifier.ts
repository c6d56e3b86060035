import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { REDIS } from '@app/platform';
import type Redis from 'ioredis';
import {
  DataSource,
  EntityManager,
  EntitySubscriberInterface,
  QueryRunner,
  TransactionCommitEvent,
  TransactionRollbackEvent,
} from 'typeorm';
import { BotConfig } from '../config/bot.config';

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
export class UpdateNotifier implements EntitySubscriberInterface {
  private readonly pending = new WeakMap<QueryRunner, Set<string>>();

  constructor(
    @InjectDataSource() dataSource: DataSource,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly config: BotConfig,
  ) {
    dataSource.subscribers.push(this);
  }

  notifyAfterCommit(manager: EntityManager, botId: string): void {
    const runner = manager.queryRunner;
    if (!runner?.isTransactionActive) {
      this.publish([botId]);
      return;
    }
    const bots = this.pending.get(runner) ?? new Set<string>();
    bots.add(botId);
    this.pending.set(runner, bots);
  }

  afterTransactionCommit(event: TransactionCommitEvent): void {
    // A released savepoint keeps the outer transaction open: wait for the real commit.
    if (event.queryRunner.isTransactionActive) return;
    const bots = this.pending.get(event.queryRunner);
    if (!bots) return;
    this.pending.delete(event.queryRunner);
    this.publish([...bots]);
  }

  afterTransactionRollback(event: TransactionRollbackEvent): void {
    if (!event.queryRunner.isTransactionActive) this.pending.delete(event.queryRunner);
  }

  private publish(botIds: string[]): void {
    for (const botId of botIds) {
      // A lost announcement only delays a waiting poll until its timeout; the row itself is safe in Postgres.
      this.redis.publish(updatesChannel(this.config), botId).catch(() => undefined);
    }
  }
}
