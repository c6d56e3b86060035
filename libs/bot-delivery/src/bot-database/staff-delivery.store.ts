import { isUuid, runNamed, runStatement, SqlTarget } from '@app/platform';
import { DataSource } from 'typeorm';
import { DeliveryStatus, DeliveryTrigger } from '../entities/webhook-delivery.entity';
import type { OpenedDelivery } from './delivery.store';
import { DeliveryErrorClass } from './delivery-error-class';
import * as deliveries from './webhook-deliveries.store';
import type { RedriveFilter } from './webhook-deliveries.store';

export type { RedriveFilter } from './webhook-deliveries.store';

/** The filter of the staff delivery routes; null means "any". */
export interface StaffDeliveryFilter {
  status: DeliveryStatus | null;
  botId: string | null;
  since: string | null;
  until: string | null;
  errorClass: DeliveryErrorClass | null;
}

export interface StaffDeliveryCursor {
  eventAt: string;
  id: string;
}

/** A delivery as the platform-wide list shows it. */
export interface StaffDeliveryRow {
  id: string;
  bot_id: string;
  bot_name: string;
  owner_id: string;
  update_id: string;
  update_type: string;
  status: DeliveryStatus;
  attempts: number;
  series: number;
  trigger: DeliveryTrigger;
  dead_letter_at: Date | null;
  last_error: string | null;
  last_status_code: number | null;
  created_at: Date;
  updated_at: Date;
  error_class: DeliveryErrorClass | null;
  /** Microsecond-exact ISO text, the cursor's time. */
  event_at: string;
}

export interface StaffDeliveryDetailRow extends Omit<StaffDeliveryRow, 'event_at'> {
  delivery_mode: string;
  next_attempt_at: Date;
  succeeded_at: Date | null;
  payload: Record<string, unknown>;
}

export interface BotDeliveryCounts {
  bot_id: string;
  bot_name: string;
  owner_id: string;
  delivery_mode: string;
  dead_letter: number;
  open: number;
  succeeded: number;
  total: number;
}

/**
 * Platform staff's view of the delivery side: deliveries of every bot, their error classes and
 * the restart of dead letters by a redrive. It runs statements of webhook-deliveries.store.ts and holds
 * no SQL of its own.
 */
export class StaffDeliveryStore {
  constructor(private readonly dataSource: DataSource) {}

  page(filter: StaffDeliveryFilter, after: StaffDeliveryCursor | null, limit: number): Promise<StaffDeliveryRow[]> {
    return this.dataSource.query(deliveries.STAFF_DELIVERY_PAGE, [
      filter.status,
      filter.botId,
      filter.since,
      filter.until,
      filter.errorClass,
      after?.eventAt ?? null,
      after?.id ?? null,
      limit,
    ]);
  }

  statusCounts(since: string | null, until: string | null): Promise<Array<{ status: DeliveryStatus; count: number }>> {
    return this.dataSource.query(deliveries.STAFF_STATUS_COUNTS, [since, until]);
  }

  deadLettersByClass(
    since: string | null,
    until: string | null,
  ): Promise<Array<{ error_class: DeliveryErrorClass | null; count: number }>> {
    return this.dataSource.query(deliveries.STAFF_DEAD_LETTERS_BY_CLASS, [since, until]);
  }

  topBots(since: string | null, until: string | null, limit: number): Promise<BotDeliveryCounts[]> {
    return this.dataSource.query(deliveries.STAFF_TOP_BOTS, [since, until, limit]);
  }

  async detail(updateId: string): Promise<StaffDeliveryDetailRow | undefined> {
    if (!isUuid(updateId)) return undefined;
    const rows: StaffDeliveryDetailRow[] = await this.dataSource.query(deliveries.STAFF_DELIVERY_DETAIL, [
      updateId.toLowerCase(),
    ]);
    return rows[0];
  }

  /** The dry run of a bulk redelivery: dead letters it would take, per bot. */
  async countRedrivable(filter: RedriveFilter): Promise<Array<{ bot_id: string; count: number }>> {
    const { rows } = await runNamed<{ bot_id: string; count: number }>(
      this.dataSource,
      deliveries.COUNT_REDRIVABLE,
      deliveries.COUNT_REDRIVABLE.values(filter),
    );
    return rows;
  }

  /**
   * A new attempt series, started by `trigger`, for each listed delivery still in one of `statuses`
   * whose bot is in webhook mode; returns those restarted. Runs in the caller's transaction.
   */
  async restart(
    on: SqlTarget,
    deliveryIds: string[],
    statuses: DeliveryStatus[],
    trigger: 'staff' | 'auto',
  ): Promise<OpenedDelivery[]> {
    if (deliveryIds.length === 0) return [];
    const { rows } = await runStatement<OpenedDelivery>(on, deliveries.RESTART_FOR_STAFF, [
      deliveryIds,
      statuses,
      trigger,
    ]);
    return rows;
  }
}
