import { Database, executeAll, executeFirst, isUuid, RowOf, SqlTarget } from '@app/platform';
import type { DeliveryStatus } from '../entities/webhook-delivery.entity';
import type { DeliveryErrorClass } from './delivery-error-class';
import * as deliveries from './webhook-deliveries.store';
import type {
  OpenedDelivery,
  RedriveFilter,
  StaffDeliveryCursor,
  StaffDeliveryFilter,
} from './webhook-deliveries.store';

export type { RedriveFilter, StaffDeliveryCursor, StaffDeliveryFilter } from './webhook-deliveries.store';

/** A delivery as the platform-wide list shows it; `event_at` is microsecond-exact ISO text, the cursor's time. */
export type StaffDeliveryRow = RowOf<ReturnType<typeof deliveries.STAFF_DELIVERY_PAGE>>;

/** One delivery with its Update and its bot, as the staff detail shows it. */
export type StaffDeliveryDetailRow = RowOf<ReturnType<typeof deliveries.STAFF_DELIVERY_DETAIL>>;

/** A bot's deliveries counted by outcome, as the staff overview ranks them. */
export type BotDeliveryCounts = RowOf<ReturnType<typeof deliveries.STAFF_TOP_BOTS>>;

/**
 * Platform staff's view of the delivery side: deliveries of every bot, their error classes and
 * the restart of dead letters by a redrive. It runs statements of webhook-deliveries.store.ts and holds
 * no SQL of its own.
 */
export class StaffDeliveryStore {
  constructor(private readonly database: Database) {}

  page(filter: StaffDeliveryFilter, after: StaffDeliveryCursor | null, limit: number): Promise<StaffDeliveryRow[]> {
    return executeAll(this.database, deliveries.STAFF_DELIVERY_PAGE(filter, after, limit));
  }

  statusCounts(since: string | null, until: string | null): Promise<Array<{ status: DeliveryStatus; count: number }>> {
    return executeAll(this.database, deliveries.STAFF_STATUS_COUNTS(since, until));
  }

  deadLettersByClass(
    since: string | null,
    until: string | null,
  ): Promise<Array<{ error_class: DeliveryErrorClass | null; count: number }>> {
    return executeAll(this.database, deliveries.STAFF_DEAD_LETTERS_BY_CLASS(since, until));
  }

  topBots(since: string | null, until: string | null, limit: number): Promise<BotDeliveryCounts[]> {
    return executeAll(this.database, deliveries.STAFF_TOP_BOTS(since, until, limit));
  }

  async detail(updateId: string): Promise<StaffDeliveryDetailRow | undefined> {
    if (!isUuid(updateId)) return undefined;
    return executeFirst(this.database, deliveries.STAFF_DELIVERY_DETAIL(updateId.toLowerCase()));
  }

  /** The dry run of a bulk redelivery: dead letters it would take, per bot. */
  countRedrivable(filter: RedriveFilter): Promise<Array<{ bot_id: string; count: number }>> {
    return deliveries.COUNT_REDRIVABLE.all(this.database, filter);
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
    return executeAll(on, deliveries.RESTART_FOR_STAFF(deliveryIds, statuses, trigger));
  }
}
