import { prepared, type BotDB } from '@app/bot-schema';
import { RowOf, SqlTarget } from '@app/platform';
import { QueryCreator, sql } from 'kysely';
import { UpdateColumns, withWrittenUpdates, WrittenUpdatesCtes } from './updates.store';
import { insertDeliveries, UpdateToDeliver } from './webhook-deliveries.store';

/*
 * The Update outbox: each Update is written in its event's transaction together with its delivery when
 * its bot is in webhook mode. It composes the two tables' fragments, so neither store imports the other
 * (the deliveries store imports the Updates store for the confirmation a success writes).
 */

/** No Updates: what a statement that may write them binds when an event has none. */
export const NO_UPDATES: Readonly<UpdateColumns> = Object.freeze({
  update_ids: [],
  update_bot_ids: [],
  update_types: [],
  update_payloads: [],
  update_created_ats: [],
});

/**
 * The CTEs of withWrittenUpdates and `delivered`, the deliveries of the Updates whose bot is in webhook
 * mode (select from `written_updates` left joined with `delivered`).
 */
export function withOutboxWritten<DB extends BotDB>(
  qb: QueryCreator<DB>,
  p: UpdateColumns,
  gate?: string,
): QueryCreator<DB & WrittenUpdatesCtes & { delivered: OpenedDeliveryOf }> {
  const written = withWrittenUpdates(qb as unknown as QueryCreator<BotDB>, p, gate).with('delivered', () =>
    insertDeliveries(sql<UpdateToDeliver>`${sql.table('written_updates')}`.as('u')),
  );
  return written as unknown as QueryCreator<DB & WrittenUpdatesCtes & { delivered: OpenedDeliveryOf }>;
}

/** A delivery the outbox wrote, by its Update. */
type OpenedDeliveryOf = RowOf<ReturnType<typeof insertDeliveries>>;

/**
 * What the caller of an outbox statement reads of each Update written (`w`, from `written_updates`)
 * and its delivery if any (`d`, from `delivered`, left joined): a WrittenUpdateRow.
 */
export const WRITTEN_UPDATE_COLUMNS = [
  'w.update_seq',
  'w.update_id',
  'w.bot_id',
  'w.type',
  'd.id as delivery_id',
  'd.created_at as delivery_created_at',
] as const;

const WRITE_UPDATES = prepared('bot_api_updates_write', (db, p: UpdateColumns) =>
  withOutboxWritten(db, p)
    .selectFrom('written_updates as w')
    .leftJoin('delivered as d', 'd.update_id', 'w.update_id')
    .select(WRITTEN_UPDATE_COLUMNS),
);

/** One Update written, with its delivery when its bot is in webhook mode. */
export type WrittenUpdateRow = RowOf<typeof WRITE_UPDATES>;

export class UpdateOutbox {
  /** Writes the Updates and their deliveries in one statement, in the caller's transaction. */
  write(on: SqlTarget, columns: UpdateColumns): Promise<WrittenUpdateRow[]> {
    return WRITE_UPDATES.all(on, columns);
  }
}
