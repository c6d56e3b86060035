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

  /** Newest first, before the entry id `before`. */
  page(limit: number, before: string | null, action: string | null): Promise<AuditRow[]> {
    return this.dataSource.query(
      `SELECT id::text, actor_id, action, target, filter, counts, created_at FROM staff_audit_log
        WHERE ($2::bigint IS NULL OR id < $2::bigint) AND ($3::varchar IS NULL OR action = $3::varchar)
        ORDER BY id DESC LIMIT $1`,
      [limit, before, action],
    );
  }
}
