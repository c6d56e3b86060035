import { Inject, Injectable } from '@nestjs/common';
import { REDIS } from '@app/platform';
import type Redis from 'ioredis';
import { ChatActionView } from './dto/message.view';

/** How long a chat action ("typing…") stays visible: spec 8 says 3 to 5 s. */
export const CHAT_ACTION_TTL_MS = 5000;

/** Ephemeral chat actions live only in Redis: losing one costs a "typing…" label, nothing more. */
@Injectable()
export class ChatActionsService {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async set(chatId: string, userId: string, action: string): Promise<void> {
    const key = `chat-actions:${chatId}`;
    const value = JSON.stringify({ action, expires_at_ms: Date.now() + CHAT_ACTION_TTL_MS });
    await this.redis.multi().hset(key, userId, value).pexpire(key, CHAT_ACTION_TTL_MS).exec();
  }

  async list(chatId: string): Promise<ChatActionView[]> {
    const entries = await this.redis.hgetall(`chat-actions:${chatId}`);
    const now = Date.now();
    return Object.entries(entries)
      .map(([userId, raw]) => ({ user_id: userId, ...(JSON.parse(raw) as { action: string; expires_at_ms: number }) }))
      .filter((entry) => entry.expires_at_ms > now);
  }
}
