import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { Bot } from '../bots/entities/bot.entity';
import { WebhookOutbox } from '../deliveries/webhook-outbox';
import { UpdateNotifier } from './update-notifier';
import { UpdatesMetrics } from './updates.metrics';
import { updateIdFor } from './update-id';
import { isSubscribed, UpdateType } from './update-types';

/** What emit needs to know about the receiving bot. */
export type UpdateRecipient = Pick<Bot, 'id' | 'scopes' | 'allowedUpdates'>;

export interface UpdateEvent {
  bot: UpdateRecipient;
  type: UpdateType;
  /** The members named for the type, e.g. `{ message: {...} }` or `{ friend_request: {...} }` (spec 6.2). */
  payload: Record<string, unknown>;
  /** Required for message, photo, document, video, audio and location: it derives the update_id. */
  messageId?: number;
}

export interface EmittedUpdate {
  updateSeq: number;
  updateId: string;
}

export const RECEIVE_SCOPE = 'messages:receive';

@Injectable()
export class UpdatesService {
  constructor(
    private readonly notifier: UpdateNotifier,
    private readonly metrics: UpdatesMetrics,
    private readonly webhookOutbox: WebhookOutbox,
  ) {}

  /**
   * Writes one Update (and, in webhook mode, its delivery) in the caller's transaction and wakes the
   * bot's waiting getUpdates after commit.
   * Returns null when the bot does not receive this type (no messages:receive scope, not subscribed)
   * or when the same message Update was already written.
   */
  async emit(manager: EntityManager, event: UpdateEvent): Promise<EmittedUpdate | null> {
    const { bot, type } = event;
    if (!bot.scopes.includes(RECEIVE_SCOPE) || !isSubscribed(bot.allowedUpdates, type)) return null;
    const updateId = updateIdFor(bot.id, type, event.messageId);
    const update = { update_id: updateId, type, bot_id: bot.id, ...event.payload };
    const rows: Array<{ update_seq: string }> = await manager.query(
      `INSERT INTO updates (update_id, bot_id, type, payload) VALUES ($1, $2, $3, $4)
       ON CONFLICT (update_id) DO NOTHING
       RETURNING update_seq`,
      [updateId, bot.id, type, JSON.stringify(update)],
    );
    if (rows.length === 0) return null;
    const updateSeq = Number(rows[0].update_seq);
    await this.webhookOutbox.record(manager, { botId: bot.id, updateSeq, updateId, type, payload: update });
    this.notifier.notifyAfterCommit(manager, bot.id);
    this.metrics.written.inc({ type });
    return { updateSeq, updateId };
  }
}
