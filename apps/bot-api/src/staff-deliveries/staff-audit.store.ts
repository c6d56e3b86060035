import { Injectable } from '@nestjs/common';
import { db, type StaffAuditLog } from '@app/bot-schema';
import { Database, execute, executeAll, RowOf, SqlTarget } from '@app/platform';
import type { Insertable } from 'kysely';
import { sql } from 'kysely';

/** An entry as an action records it: its filter and counts are JSON objects. */
export type AuditEntry = {
  actorId: string;
  action: string;
  target: string | null;
  filter: Record<string, unknown> | null;
  counts: Record<string, unknown> | null;
};

type AuditColumns = Pick<Insertable<StaffAuditLog>, 'filter' | 'counts'>;
/** What `record` writes to the JSON columns: objects, or null. */
type AuditJson = Pick<AuditEntry, 'filter' | 'counts'>;

/**
 * Newest first (by time, then by id as a number), after the entry `before` of the previous page. The
 * table's columns are qualified: the id is selected as text, and an unqualified ORDER BY id would
 * sort that text (9 before 73). Times compare at the cursor's precision (milliseconds), so an entry
 * within the millisecond of the page's last is neither skipped nor shown twice.
 */
function auditPage(limit: number, before: { at: string; id: string } | null, action: string | null) {
  const at = sql<Date>`date_trunc('milliseconds', log.created_at)`;
  const page = db
    .selectFrom('staff_audit_log as log')
    .select([
      sql<string>`log.id::text`.as('id'),
      'log.actor_id',
      'log.action',
      'log.target',
      'log.filter',
      'log.counts',
      'log.created_at',
    ])
    .where(
      sql<boolean>`(${before?.at ?? null}::timestamptz IS NULL
        OR (${at}, log.id) < (${before?.at ?? null}::timestamptz, ${before?.id ?? null}::bigint))`,
    )
    .where(sql<boolean>`(${action}::varchar IS NULL OR log.action = ${action}::varchar)`)
    .orderBy(at, 'desc')
    .orderBy('log.id', 'desc')
    .limit(limit);
  return page.$castTo<Omit<RowOf<typeof page>, keyof AuditJson> & AuditJson>();
}

export type AuditRow = RowOf<ReturnType<typeof auditPage>>;

/** The staff audit log: who did what, when, with which filter and counts. Append only. */
@Injectable()
export class StaffAuditStore {
  constructor(private readonly database: Database) {}

  /** Written in the transaction of the action it records, so an action is never without its entry. */
  async record(on: SqlTarget, entry: AuditEntry): Promise<void> {
    const json: AuditColumns = {
      filter: entry.filter === null ? null : JSON.stringify(entry.filter),
      counts: entry.counts === null ? null : JSON.stringify(entry.counts),
    };
    await execute(
      on,
      db.insertInto('staff_audit_log').values({
        actor_id: entry.actorId,
        action: entry.action,
        target: entry.target,
        ...json,
      }),
    );
  }

  /** A page of the log, newest first (see auditPage). */
  page(limit: number, before: { at: string; id: string } | null, action: string | null): Promise<AuditRow[]> {
    return executeAll(this.database, auditPage(limit, before, action));
  }
}
