import { Compilable, RawBuilder, sql } from 'kysely';
import { Database, execute, executeAll, executeFirst } from '@app/platform';
import { db } from '@app/bot-schema';

/**
 * The days of the delivery tables: `updates`, `webhook_deliveries` and `webhook_delivery_attempts` are
 * partitioned by UTC day of created_at (the attempts by their delivery's) since the migration
 * PartitionDeliveryTables, and their retention is whole days dropped, not rows deleted.
 */

/** How many days ahead of today every delivery table has its partition. */
export const DAYS_AHEAD = 7;

/** A statement the builder cannot say (catalog reads, partition DDL), compiled by the same compiler. */
function rawStatement<R>(statement: RawBuilder<R>): Compilable<R> {
  return { compile: () => statement.compile(db) };
}

/** A partition as the catalog lists it under its parent. */
interface Day {
  partition: string;
  /** `FOR VALUES FROM (…) TO (…)`, as the catalog says it: what a re-attach gives back. */
  bound: string;
  /** A detach that was cut off half-way: it is finalized, not started. */
  detaching: boolean;
  /** Null for the legacy partition's MINVALUE. */
  lower: Date | null;
  upper: Date;
}

/**
 * The partitions of `parent` whose upper bound is at or before `before` (every row of theirs is older),
 * oldest first. The bound is read from the catalog's own text of it.
 */
const DAYS_BEFORE = (parent: string, before: RawBuilder<Date>) =>
  rawStatement(sql<Day>`
    SELECT partition, bound, detaching, lower, upper
      FROM (SELECT c.relname AS partition, pg_get_expr(c.relpartbound, c.oid) AS bound,
                   i.inhdetachpending AS detaching,
                   substring(pg_get_expr(c.relpartbound, c.oid) from 'FROM \\(''([^'']+)''\\)')::timestamptz AS lower,
                   substring(pg_get_expr(c.relpartbound, c.oid) from 'TO \\(''([^'']+)''\\)')::timestamptz AS upper
              FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             WHERE i.inhparent = ${parent}::regclass) AS days
     WHERE upper <= ${before}
     ORDER BY upper, partition`);

/**
 * The days up to DAYS_AHEAD after today, through the function the migration PartitionDeliveryTables
 * defines: it makes each missing day as a table of its own and attaches it, which locks the parent in
 * SHARE UPDATE EXCLUSIVE mode only, so writers go on meanwhile. Answers how many it made.
 */
const CREATE_DAYS_AHEAD = () =>
  db.selectNoFrom(sql<number>`create_delivery_days_ahead(${sql.lit(DAYS_AHEAD)})`.as('created'));

/**
 * Whether a delivery of the day changed within the retention (an attempt, a redelivery): through the
 * partial indexes of the finished deliveries by `updated_at` and of the open ones.
 */
const CHANGED_WITHIN = (partition: string, retentionDays: number) => {
  const day = sql.id(partition);
  const since = sql`now() - make_interval(days => ${retentionDays})`;
  return rawStatement(sql<{ changed: boolean }>`
    SELECT EXISTS (SELECT 1 FROM ${day} WHERE status IN ('succeeded', 'dead_letter') AND updated_at >= ${since})
        OR EXISTS (SELECT 1 FROM ${day} WHERE status IN ('pending', 'retrying') AND updated_at >= ${since}) AS changed`);
};

/** The foreign keys of a table (a detached day of attempts keeps its reference to the deliveries). */
const REFERENCES_OF = (table: string) =>
  rawStatement(sql<{ name: string }>`
    SELECT conname AS name FROM pg_constraint WHERE conrelid = ${table}::regclass AND contype = 'f' AND conparentid = 0`);

const IS_PARTITION_OF = (parent: string, partition: string) =>
  rawStatement(sql<{ one: number }>`
    SELECT 1 AS one FROM pg_inherits WHERE inhparent = ${parent}::regclass AND inhrelid = ${partition}::regclass`);

const FOREIGN_KEY_VIOLATION = '23503';

/**
 * How many whole days after today (UTC) every one of the three tables has its partition for: the least
 * of the three; -1 when one has none for today.
 */
const DAYS_AHEAD_COVERED = () =>
  rawStatement(sql<{ days: number }>`
    SELECT min(covered)::int AS days
      FROM (SELECT coalesce(max(upper)::date - (now() AT TIME ZONE 'UTC')::date - 1, -1) AS covered
              FROM unnest(ARRAY['updates', 'webhook_deliveries', 'webhook_delivery_attempts']) AS t(parent)
              LEFT JOIN LATERAL (
                SELECT substring(pg_get_expr(c.relpartbound, c.oid) from 'TO \\(''([^'']+)''\\)')::timestamptz
                         AT TIME ZONE 'UTC' AS upper
                  FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                 WHERE i.inhparent = t.parent::regclass) AS days ON true
             GROUP BY t.parent) AS tables`);

export interface LogDaysOutcome {
  dropped: string[];
  /** Days past the retention kept because a delivery of theirs changed within it. */
  kept: string[];
}

export class DeliveryDaysStore {
  constructor(private readonly database: Database) {}

  async daysAheadCovered(): Promise<number> {
    return (await executeFirst(this.database, DAYS_AHEAD_COVERED()))?.days ?? -1;
  }

  async createDaysAhead(): Promise<number> {
    const row = await executeFirst(this.database, CREATE_DAYS_AHEAD());
    return Number(row?.created ?? 0);
  }

  /**
   * Every day of `updates` whose every row is older than the retention, the legacy partition too once
   * its cutover is: detached CONCURRENTLY (no reader or writer of the other days waits), then dropped.
   * Answers the days dropped.
   */
  async dropExpiredUpdateDays(retentionHours: number): Promise<string[]> {
    const expired = await executeAll(
      this.database,
      DAYS_BEFORE('updates', sql<Date>`now() - make_interval(hours => ${retentionHours})`),
    );
    for (const day of expired) {
      await this.detach('updates', day);
      await this.drop(day.partition);
    }
    return expired.map((day) => day.partition);
  }

  /**
   * The retention of the delivery log: a day whose every delivery is older than the retention, none of
   * which changed within it, is dropped whole, its attempts first. Race-free with a redelivery of one of
   * its deliveries: the day is detached first, looked at again once nothing can change it, and attached
   * back (its attempts too) if a delivery of it changed in between.
   */
  async dropExpiredLogDays(retentionDays: number): Promise<LogDaysOutcome> {
    const outcome: LogDaysOutcome = { dropped: [], kept: [] };
    const expired = await executeAll(
      this.database,
      DAYS_BEFORE('webhook_deliveries', sql<Date>`now() - make_interval(days => ${retentionDays})`),
    );
    for (const day of expired) {
      if (!day.detaching && (await this.changedWithin(day.partition, retentionDays))) {
        outcome.kept.push(day.partition);
        continue;
      }
      // The attempts of the day: the days of attempts that end within it (the same day, or the legacy
      // partition's range when the two tables' cutovers are the same).
      const attemptDays = (
        await executeAll(this.database, DAYS_BEFORE('webhook_delivery_attempts', sql<Date>`${day.upper}::timestamptz`))
      ).filter((attempts) => day.lower === null || attempts.upper > day.lower);
      for (const attempts of attemptDays) await this.detachAttempts(attempts);
      if (!(await this.detachDeliveries(day)) || (await this.changedWithin(day.partition, retentionDays))) {
        await this.attachBack(day, attemptDays);
        outcome.kept.push(day.partition);
        continue;
      }
      for (const attempts of attemptDays) await this.drop(attempts.partition);
      await this.drop(day.partition);
      outcome.dropped.push(day.partition);
    }
    return outcome;
  }

  /**
   * A day of attempts detached keeps its reference to the deliveries as a constraint of its own, which
   * would refuse the detach of their day: it goes (an attach back makes it again, validated).
   */
  private async detachAttempts(attempts: Day): Promise<void> {
    await this.detach('webhook_delivery_attempts', attempts);
    const references = await executeAll(this.database, REFERENCES_OF(attempts.partition));
    for (const { name } of references) {
      await execute(
        this.database,
        rawStatement(sql`ALTER TABLE ${sql.id(attempts.partition)} DROP CONSTRAINT ${sql.id(name)}`),
      );
    }
  }

  /**
   * False when an attempt still references a delivery of the day: a day of attempts that runs past the
   * deliveries' day (the two tables' legacy partitions with different cutovers) holds it until both go.
   */
  private async detachDeliveries(day: Day): Promise<boolean> {
    try {
      await this.detach('webhook_deliveries', day);
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === FOREIGN_KEY_VIOLATION) return false;
      throw error;
    }
  }

  /** The day and its attempts attached as they were, when a delivery of it changed after all. */
  private async attachBack(day: Day, attemptDays: Day[]): Promise<void> {
    if (!(await this.isAttached('webhook_deliveries', day.partition))) await this.attach('webhook_deliveries', day);
    for (const attempts of attemptDays) await this.attach('webhook_delivery_attempts', attempts);
  }

  private async isAttached(parent: string, partition: string): Promise<boolean> {
    return (await executeAll(this.database, IS_PARTITION_OF(parent, partition))).length > 0;
  }

  private async changedWithin(partition: string, retentionDays: number): Promise<boolean> {
    return (await executeFirst(this.database, CHANGED_WITHIN(partition, retentionDays)))?.changed ?? false;
  }

  private async detach(parent: string, day: Day): Promise<void> {
    const how = day.detaching ? sql`FINALIZE` : sql`CONCURRENTLY`;
    await execute(
      this.database,
      rawStatement(sql`ALTER TABLE ${sql.id(parent)} DETACH PARTITION ${sql.id(day.partition)} ${how}`),
    );
  }

  private async attach(parent: string, day: Day): Promise<void> {
    await execute(
      this.database,
      rawStatement(sql`ALTER TABLE ${sql.id(parent)} ATTACH PARTITION ${sql.id(day.partition)} ${sql.raw(day.bound)}`),
    );
  }

  private async drop(partition: string): Promise<void> {
    await execute(this.database, rawStatement(sql`DROP TABLE ${sql.id(partition)}`));
  }
}
