import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

export interface AuditEntry {
  actorId: string;
  action: string;
  target: string | null;
  filter: Record<string, unknown> | null;
  counts: Record<string, unknown> | null;
}

export interface AuditRow {
  id: string;
  actor_id: string;
  action: string;
  target: string | null;
  filter: Record<string, unknown> | null;
  counts: Record<string, unknown> | null;
  created_at: Date;
}

/** The staff audit log: who did what, when, with which filter and counts. Append only. */
@Injectable()
export class StaffAuditStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Written in the transaction of the action it records, so an action is never without its entry. */
  async record(manager: EntityManager, entry: AuditEntry): Promise<void> {
    await manager.query(
      `INSERT INTO staff_audit_log (actor_id, action, target, filter, counts) VALUES ($1, $2, $3, $4, $5)`,
      [entry.actorId, entry.action, entry.target, entry.filter, entry.counts],
    );
  }

  /**
   * Newest first (by time, then by id as a number), after the entry `before` of the previous page. The
   * table's columns are qualified: the id is selected as text, and an unqualified ORDER BY id would
   * sort that text (9 before 73). Times compare at the cursor's precision (milliseconds), so an entry
   * within the millisecond of the page's last is neither skipped nor shown twice.
   */
  page(limit: number, before: { at: string; id: string } | null, action: string | null): Promise<AuditRow[]> {
    return this.dataSource.query(
      `SELECT log.id::text AS id, log.actor_id, log.action, log.target, log.filter, log.counts, log.created_at
         FROM staff_audit_log log
        WHERE ($2::timestamptz IS NULL
               OR (date_trunc('milliseconds', log.created_at), log.id) < ($2::timestamptz, $3::bigint))
          AND ($4::varchar IS NULL OR log.action = $4::varchar)
        ORDER BY date_trunc('milliseconds', log.created_at) DESC, log.id DESC LIMIT $1`,
      [limit, before?.at ?? null, before?.id ?? null, action],
    );
  }
}
