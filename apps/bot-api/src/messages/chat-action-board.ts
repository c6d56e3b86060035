import type { FactoryProvider } from '@nestjs/common';
import { COORDINATION, type CoordinationSettings } from '@app/coordination';
import { REDIS } from '@app/platform';
import type Redis from 'ioredis';
import { ChatActionsStore } from './chat-actions.store';
import type { ChatActionView } from './dto/message.view';

/**
 * Where the chat actions of every replica live: Redis (a hash per chat with a TTL) or, in the
 * PostgreSQL-only mode, the chat_actions table. Losing one costs a "typing…" label, nothing more.
 */
export interface ChatActionBoard {
  put(chatId: string, userId: string, action: string, expiresAtMs: number): Promise<void>;
  live(chatId: string, nowMs: number): Promise<ChatActionView[]>;
}

export const CHAT_ACTION_BOARD = Symbol('CHAT_ACTION_BOARD');

/** How often a replica sweeps expired rows, at most (on a write, so an idle service costs nothing). */
const SWEEP_EVERY_MS = 60_000;

export class PostgresChatActionBoard implements ChatActionBoard {
  private lastSweep = 0;

  constructor(private readonly store: ChatActionsStore) {}

  async put(chatId: string, userId: string, action: string, expiresAtMs: number): Promise<void> {
    await this.store.put(chatId, userId, action, new Date(expiresAtMs));
    if (Date.now() - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = Date.now();
    await this.store.deleteExpired(new Date());
  }

  async live(chatId: string, nowMs: number): Promise<ChatActionView[]> {
    const rows = await this.store.live(chatId, new Date(nowMs));
    return rows.map((row) => ({ user_id: row.user_id, action: row.action, expires_at_ms: Number(row.expires_at_ms) }));
  }
}

export class RedisChatActionBoard implements ChatActionBoard {
  constructor(private readonly redis: Redis) {}

  async put(chatId: string, userId: string, action: string, expiresAtMs: number): Promise<void> {
    const key = chatKey(chatId);
    const value = JSON.stringify({ action, expires_at_ms: expiresAtMs });
    await this.redis.multi().hset(key, userId, value).pexpireat(key, expiresAtMs).exec();
  }

  async live(chatId: string, nowMs: number): Promise<ChatActionView[]> {
    const entries = await this.redis.hgetall(chatKey(chatId));
    return Object.entries(entries)
      .map(([userId, raw]) => ({ user_id: userId, ...(JSON.parse(raw) as { action: string; expires_at_ms: number }) }))
      .filter((entry) => entry.expires_at_ms > nowMs);
  }
}

const chatKey = (chatId: string) => `chat-actions:${chatId}`;

/** Picks the board for the coordination backend chosen at boot. */
export const chatActionBoardProvider: FactoryProvider<ChatActionBoard> = {
  provide: CHAT_ACTION_BOARD,
  inject: [COORDINATION, ChatActionsStore, { token: REDIS, optional: true }],
  useFactory: (settings: CoordinationSettings, store: ChatActionsStore, redis?: Redis) => {
    if (settings.backend === 'postgres') return new PostgresChatActionBoard(store);
    if (!redis) throw new Error('the Redis coordination backend needs the shared REDIS client');
    return new RedisChatActionBoard(redis);
  },
};
