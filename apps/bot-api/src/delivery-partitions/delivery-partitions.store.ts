import { Injectable } from '@nestjs/common';
import { Compilable, RawBuilder, sql } from 'kysely';
import { Database, execute, executeAll, executeFirst } from '@app/platform';
import { db } from '@app/bot-schema';

/** How many days ahead of today every delivery table has its partition. */
export const DAYS_AHEAD = 7;

/** A statement the builder cannot say (catalog reads, partition DDL), compiled by the same compiler. */
function rawStatement<R>(statement: RawBuilder<R>): Compilable<R> {
  return { compile: () => statement.compile(db) };
}

/**
 * The day partitions of `updates`, `webhook_deliveries` and `webhook_delivery_attempts` up to DAYS_AHEAD
 * days after today (UTC), through the function the migration PartitionDeliveryTables defines: it makes
 * each missing day as a table of its own and attaches it, which locks the parent in SHARE UPDATE
 * EXCLUSIVE mode only, so writers go on meanwhile. Answers how many it made.
 */
const CREATE_DAYS_AHEAD = () =>
  db.selectNoFrom(sql<number>`create_delivery_days_ahead(${sql.lit(DAYS_AHEAD)})`.as('created'));

/**
 * The partitions of `updates` whose every row is older than `hours`: their upper bound is. The legacy
 * partition too, once its cutover is. `detaching`: a detach that was cut off and must be finalized.
 */
const EXPIRED_UPDATE_DAYS = (hours: number) =>
  rawStatement(sql<{ partition: string; detaching: boolean }>`
    SELECT c.relname AS partition, i.inhdetachpending AS detaching
      FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = 'updates'::regclass
       AND substring(pg_get_expr(c.relpartbound, c.oid) from 'TO \\(''([^'']+)''\\)')::timestamptz
           <= now() - make_interval(hours => ${hours})
     ORDER BY c.relname`);

@Injectable()
export class DeliveryPartitionsStore {
  constructor(private readonly database: Database) {}

  async createDaysAhead(): Promise<number> {
    const row = await executeFirst(this.database, CREATE_DAYS_AHEAD());
    return Number(row?.created ?? 0);
  }

  /**
   * Drops every partition of `updates` older than the retention whole: detached CONCURRENTLY (no
   * writer or reader of the other days waits), then dropped. Answers the partitions dropped.
   */
  async dropExpiredUpdateDays(retentionHours: number): Promise<string[]> {
    const expired = await executeAll(this.database, EXPIRED_UPDATE_DAYS(retentionHours));
    for (const { partition, detaching } of expired) {
      const day = sql.id(partition);
      await execute(
        this.database,
        rawStatement(
          detaching
            ? sql`ALTER TABLE updates DETACH PARTITION ${day} FINALIZE`
            : sql`ALTER TABLE updates DETACH PARTITION ${day} CONCURRENTLY`,
        ),
      );
      await execute(this.database, rawStatement(sql`DROP TABLE ${day}`));
    }
    return expired.map((row) => row.partition);
  }
}
