import { Injectable } from '@nestjs/common';
import { OutboxDelivery, WebhookOutbox } from '../deliveries/webhook-outbox';
import { UpdateNotifier } from './update-notifier';
import { UpdatesMetrics } from './updates.metrics';
import { updateIdFor } from './update-id';
import { isSubscribed } from '../update-types';
import { EmittedUpdate, UpdateEvent } from './update-event';
import { DeliveryDomain, UpdateColumns, WrittenUpdateRow } from '@app/bot-delivery';
import type { CommitScope } from '../database/after-commit';

export const RECEIVE_SCOPE = 'messages:receive';

/** Writes Updates in the event's transaction and announces them once it commits. */
@Injectable()
export class UpdatesService {
  constructor(
    private readonly notifier: UpdateNotifier,
    private readonly metrics: UpdatesMetrics,
    private readonly webhookOutbox: WebhookOutbox,
    private readonly delivery: DeliveryDomain,
  ) {}

  /**
   * Writes one Update (and, in webhook mode, its delivery) in the caller's transaction and wakes the
   * bot's waiting getUpdates after commit.
   * Returns null when the bot does not receive this type (no messages:receive scope, not subscribed)
   * or when the same message Update was already written.
   */
  async emit(on: CommitScope, event: UpdateEvent): Promise<EmittedUpdate | null> {
    return (await this.emitAll(on, [event])).get(event.bot.id) ?? null;
  }

  /**
   * `emit` for the Updates of one event to several bots (one Update per bot), in one statement.
   * Returns what was written by bot id; bots that do not receive the type are left out.
   */
  async emitAll(on: CommitScope, events: readonly UpdateEvent[]): Promise<Map<string, EmittedUpdate>> {
    const columns = this.columnsOf(events);
    if (columns === null) return new Map();
    return this.written(on, await this.delivery.writeOutbox(on, columns));
  }

  /** The events' Updates as statement parameters; null when no bot receives any of them. */
  columnsOf(events: readonly UpdateEvent[]): UpdateColumns | null {
    const wanted = events.filter(
      ({ bot, type }) => bot.scopes.includes(RECEIVE_SCOPE) && isSubscribed(bot.allowedUpdates, type),
    );
    if (wanted.length === 0) return null;
    const columns: UpdateColumns = {
      update_ids: [],
      update_bot_ids: [],
      update_types: [],
      update_payloads: [],
      update_created_ats: [],
    };
    for (const { bot, type, payload, message } of wanted) {
      const updateId = updateIdFor(bot.id, type, message?.id);
      columns.update_ids.push(updateId);
      columns.update_bot_ids.push(bot.id);
      columns.update_types.push(type);
      columns.update_payloads.push(JSON.stringify({ update_id: updateId, type, bot_id: bot.id, ...payload }));
      columns.update_created_ats.push(message ? message.createdAt.toISOString() : null);
    }
    return columns;
  }

  /**
   * After a statement built with `withOutboxWritten` (@app/bot-delivery's Update outbox) wrote these rows: the bots' pollers are woken and
   * the deliveries queued once `on`'s transaction commits (at once when it has none).
   */
  written(on: CommitScope, rows: readonly WrittenUpdateRow[]): Map<string, EmittedUpdate> {
    const emitted = new Map<string, EmittedUpdate>();
    const deliveries: OutboxDelivery[] = [];
    for (const row of rows) {
      emitted.set(row.bot_id, { updateSeq: Number(row.update_seq), updateId: row.update_id });
      // A bot in webhook mode has no getUpdates waiting (the call is refused while a webhook is set):
      // its Update goes to the dispatcher, and announcing it to pollers would only cost a message on the channel bus.
      if (row.delivery_id !== null) {
        deliveries.push({ id: row.delivery_id, botId: row.bot_id, createdAt: row.delivery_created_at });
      } else this.notifier.notifyAfterCommit(on, row.bot_id);
      this.metrics.written.inc({ type: row.type });
    }
    this.webhookOutbox.deliverAfterCommit(on, deliveries);
    return emitted;
  }
}
