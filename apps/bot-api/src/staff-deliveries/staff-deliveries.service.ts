import { Injectable } from '@nestjs/common';
import {
  DELIVERY_STATUSES,
  deliverJobFor,
  DeliveryDomain,
  StaffDeliveryDetailRow,
  StaffDeliveryRow,
} from '@app/bot-delivery';
import { Database } from '@app/platform';
import { BotErrors } from '../bot-errors';
import { DeliveryQueue } from '../deliveries/delivery-queue';
import { attemptView, seriesLog } from '../deliveries/delivery.view';
import { assertWindow, decodeCursor, encodeCursor } from './cursor';
import { AuditQueryDto, StaffDeliveriesQueryDto, WindowQueryDto } from './dto/staff-deliveries.dto';
import { StaffAuditStore } from './staff-audit.store';
import { StaffDeliveriesMetrics } from './staff-deliveries.metrics';
import {
  AuditPage,
  DeliverySummaryView,
  StaffDeliveryDetailView,
  StaffDeliveryPage,
  StaffDeliveryView,
} from './staff-deliveries.view';

const TOP_BOTS = 20;
const iso = (value: Date | null): string | null => (value ? new Date(value).toISOString() : null);
const isoAt = (value: Date): string => new Date(value).toISOString();

function staffDeliveryView(row: Omit<StaffDeliveryRow, 'event_at'>): StaffDeliveryView {
  return {
    update_id: row.update_id,
    bot_id: row.bot_id,
    bot_name: row.bot_name,
    owner_id: row.owner_id,
    update_type: row.update_type,
    status: row.status,
    attempts: row.attempts,
    series: row.series,
    trigger: row.trigger,
    dead_letter_at: iso(row.dead_letter_at),
    last_error: row.last_error,
    last_status_code: row.last_status_code,
    error_class: row.error_class,
    created_at: isoAt(row.created_at),
    updated_at: isoAt(row.updated_at),
  };
}
/** Platform staff's delivery log across all bots: list, summary, inspect, redeliver one, audit log. */
@Injectable()
export class StaffDeliveriesService {
  constructor(
    private readonly database: Database,
    private readonly delivery: DeliveryDomain,
    private readonly queue: DeliveryQueue,
    private readonly audit: StaffAuditStore,
    private readonly metrics: StaffDeliveriesMetrics,
  ) {}

  async list(query: StaffDeliveriesQueryDto): Promise<StaffDeliveryPage> {
    assertWindow(query.since, query.until);
    const limit = query.pageSize ?? 50;
    const after = decodeCursor(query.cursor);
    if (after && !/^[0-9a-f-]{36}$/i.test(after.id)) throw BotErrors.invalid('cursor is not one this API returned');
    const rows = await this.delivery.staffPage(
      {
        status: query.status ?? null,
        botId: query.bot_id ?? null,
        since: query.since ?? null,
        until: query.until ?? null,
        errorClass: query.error ?? null,
      },
      after && { eventAt: after.at, id: after.id },
      limit + 1,
    );
    const more = rows.length > limit;
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map(staffDeliveryView),
      next_cursor: more && last ? encodeCursor(last.event_at, last.id) : null,
    };
  }

  async summary(query: WindowQueryDto): Promise<DeliverySummaryView> {
    assertWindow(query.since, query.until);
    const since = query.since ?? null;
    const until = query.until ?? null;
    const [statuses, classes, bots] = await Promise.all([
      this.delivery.statusCounts(since, until),
      this.delivery.deadLettersByClass(since, until),
      this.delivery.topBots(since, until, TOP_BOTS),
    ]);
    const byStatus = Object.fromEntries(DELIVERY_STATUSES.map((status) => [status, 0]));
    for (const row of statuses) byStatus[row.status] = row.count;
    return {
      since,
      until,
      by_status: byStatus,
      dead_letters_by_error: Object.fromEntries(classes.map((row) => [row.error_class ?? 'none', row.count])),
      bots: bots.map((bot) => ({
        bot_id: bot.bot_id,
        bot_name: bot.bot_name,
        owner_id: bot.owner_id,
        delivery_mode: bot.delivery_mode,
        dead_letter: bot.dead_letter,
        open: bot.open,
        succeeded: bot.succeeded,
        total: bot.total,
      })),
    };
  }

  async get(updateId: string): Promise<StaffDeliveryDetailView> {
    const row = await this.detail(updateId);
    const attempts = await this.delivery.attemptsOf(row.id);
    const open = row.status === 'pending' || row.status === 'retrying';
    return {
      ...staffDeliveryView(row),
      delivery_mode: row.delivery_mode,
      next_attempt_at: open ? iso(row.next_attempt_at) : null,
      succeeded_at: iso(row.succeeded_at),
      update: row.payload,
      attempt_log: attempts.map(attemptView),
      series_log: seriesLog(row, attempts),
    };
  }

  /** A finished delivery of any bot goes out again under the same update_id; audited with the outcome. */
  async redeliver(staffId: string, updateId: string): Promise<StaffDeliveryView> {
    const row = await this.detail(updateId);
    if (row.delivery_mode !== 'webhook') {
      throw BotErrors.error('CONFLICT', 'The bot has no webhook; it cannot be redelivered to');
    }
    const restarted = await this.database.transaction(async (tx) => {
      const opened = await this.delivery.redrive(tx, [row.id], ['dead_letter', 'succeeded'], 'staff');
      if (opened.length === 0) {
        throw BotErrors.error('CONFLICT', 'This delivery is still pending or retrying, or its bot left webhook mode');
      }
      await this.audit.record(tx, {
        actorId: staffId,
        action: 'delivery.redeliver',
        target: row.update_id,
        filter: { bot_id: row.bot_id },
        counts: { redelivered: 1, previous_status: row.status },
      });
      return opened;
    });
    // Queued once committed: a job must never find its delivery still uncommitted.
    void this.queue.enqueue(restarted.map(deliverJobFor));
    this.metrics.redelivered.inc();
    return staffDeliveryView(await this.detail(updateId));
  }

  async auditLog(query: AuditQueryDto): Promise<AuditPage> {
    const limit = query.pageSize ?? 50;
    const before = decodeCursor(query.cursor);
    if (before && !/^\d+$/.test(before.id)) throw BotErrors.invalid('cursor is not one this API returned');
    const rows = await this.audit.page(limit + 1, before, query.action ?? null);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map((row) => ({
        id: row.id,
        actor_id: row.actor_id,
        action: row.action,
        target: row.target,
        filter: row.filter,
        counts: row.counts,
        created_at: isoAt(row.created_at),
      })),
      next_cursor: rows.length > limit && last ? encodeCursor(iso(last.created_at) as string, last.id) : null,
    };
  }

  private async detail(updateId: string): Promise<StaffDeliveryDetailRow> {
    const row = await this.delivery.staffDetail(updateId);
    if (!row) throw BotErrors.notFound('Delivery');
    return row;
  }
}
