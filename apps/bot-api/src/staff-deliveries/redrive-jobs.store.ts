import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  autoRedrivableDeadLettersSql,
  composedStatement,
  redrivableDeadLettersSql,
  RedriveFilter,
} from '@app/bot-delivery';
import { namedStatement, runNamed } from '@app/platform';
import { DataSource, EntityManager } from 'typeorm';

export type RedriveJobStatus = 'running' | 'completed' | 'cancelled';
/** Started by platform staff, or by the system when a bot's receiver recovered (self-healing dead letters). */
export type RedriveJobKind = 'staff' | 'auto';
export const REDRIVE_JOB_KINDS: readonly RedriveJobKind[] = ['staff', 'auto'];
/** Asked every redrive step (a lost queue job is re-queued), so prepared once per connection. */
const RUNNING_JOBS = namedStatement(
  'delivery_redrive_jobs_running',
  `SELECT id FROM delivery_redrive_jobs
    WHERE status = 'running' AND created_at < now() - make_interval(secs => $2::double precision / 1000)
    ORDER BY created_at LIMIT $1`,
);

/** The actor of automatic jobs, in the job and in the audit log. */
export const SYSTEM_ACTOR = 'system';

export interface RedriveJobRow {
  id: string;
  status: RedriveJobStatus;
  kind: RedriveJobKind;
  filter: Record<string, unknown>;
  rate_per_bot: number;
  total: number;
  created_by: string;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

export interface RedriveItemCounts {
  bot_id: string;
  pending: number;
  done: number;
  failed: number;
}

export interface NextItem {
  delivery_id: string;
  bot_id: string;
}

const JOB_COLUMNS = `id, status, kind, filter, rate_per_bot, total, created_by, created_at, updated_at, finished_at`;

/*
 * A job's items are the delivery library's redrivable dead letters, taken in the statement that counts
 * them into the job (one snapshot, so the total is exact); the library's fragments name their
 * parameters, which these statements bind by name.
 */
const TAKE_REDRIVABLE = composedStatement<RedriveFilter & { jobId: string }>(
  'delivery_redrive_jobs_take',
  (p) => `WITH taken AS (
     INSERT INTO delivery_redrive_items (job_id, delivery_id, bot_id, update_seq)
     SELECT ${p.jobId}::uuid, r.delivery_id, r.bot_id, r.update_seq FROM ${redrivableDeadLettersSql(p)} r
     RETURNING 1)
   UPDATE delivery_redrive_jobs SET total = (SELECT count(*) FROM taken) WHERE id = ${p.jobId}::uuid
   RETURNING ${JOB_COLUMNS}`,
);

const TAKE_AUTO_REDRIVABLE = composedStatement<{ botId: string; jobId: string }>(
  'delivery_redrive_jobs_take_auto',
  (p) => `WITH taken AS (
     INSERT INTO delivery_redrive_items (job_id, delivery_id, bot_id, update_seq)
     SELECT ${p.jobId}::uuid, r.delivery_id, r.bot_id, r.update_seq FROM ${autoRedrivableDeadLettersSql(p)} r
     RETURNING 1)
   UPDATE delivery_redrive_jobs SET total = (SELECT count(*) FROM taken) WHERE id = ${p.jobId}::uuid
   RETURNING ${JOB_COLUMNS}`,
);

/** Redrive jobs and the dead letters each one took: the only SQL on those two tables. */
@Injectable()
export class RedriveJobsStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** A running job whose items are the redrivable dead letters matching the filter at this instant. */
  async create(
    manager: EntityManager,
    filter: RedriveFilter,
    stored: Record<string, unknown>,
    ratePerBot: number,
    createdBy: string,
  ): Promise<RedriveJobRow> {
    const [job]: RedriveJobRow[] = await manager.query(
      `INSERT INTO delivery_redrive_jobs (filter, rate_per_bot, total, created_by)
       VALUES ($1, $2, 0, $3) RETURNING ${JOB_COLUMNS}`,
      [stored, ratePerBot, createdBy],
    );
    const { rows } = await runNamed<RedriveJobRow>(
      manager,
      TAKE_REDRIVABLE,
      TAKE_REDRIVABLE.values({ ...filter, jobId: job.id }),
    );
    return rows[0];
  }

  /**
   * The automatic job of a recovered bot: its dead letters that an automatic redrive may take, in a
   * running job by the system. Undefined when the bot has an automatic job running already (at most
   * one per bot; its recovery waits for it) or nothing to take; `busy` tells the two apart.
   */
  async createAutomatic(
    manager: EntityManager,
    botId: string,
    stored: Record<string, unknown>,
    ratePerBot: number,
  ): Promise<{ job?: RedriveJobRow; busy: boolean }> {
    const [job]: RedriveJobRow[] = await manager.query(
      `INSERT INTO delivery_redrive_jobs (kind, bot_id, filter, rate_per_bot, total, created_by)
       VALUES ('auto', $1, $2, $3, 0, $4)
       ON CONFLICT (bot_id) WHERE kind = 'auto' AND status = 'running' DO NOTHING
       RETURNING ${JOB_COLUMNS}`,
      [botId, stored, ratePerBot, SYSTEM_ACTOR],
    );
    if (!job) return { busy: true };
    const {
      rows: [updated],
    } = await runNamed<RedriveJobRow>(
      manager,
      TAKE_AUTO_REDRIVABLE,
      TAKE_AUTO_REDRIVABLE.values({ botId, jobId: job.id }),
    );
    if (updated.total > 0) return { job: updated, busy: false };
    await manager.query(`DELETE FROM delivery_redrive_jobs WHERE id = $1`, [job.id]);
    return { busy: false };
  }

  async find(jobId: string, manager: EntityManager = this.dataSource.manager): Promise<RedriveJobRow | undefined> {
    const rows: RedriveJobRow[] = await manager.query(
      `SELECT ${JOB_COLUMNS} FROM delivery_redrive_jobs WHERE id = $1`,
      [jobId],
    );
    return rows[0];
  }

  /** Newest first, after the keyset (created_at, id) of the last one seen. */
  recent(limit: number, before: { createdAt: string; id: string } | null): Promise<RedriveJobRow[]> {
    return this.dataSource.query(
      `SELECT ${JOB_COLUMNS} FROM delivery_redrive_jobs
        WHERE $2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::uuid)
        ORDER BY created_at DESC, id DESC LIMIT $1`,
      [limit, before?.createdAt ?? null, before?.id ?? null],
    );
  }

  countsPerBot(jobId: string): Promise<RedriveItemCounts[]> {
    return this.dataSource.query(
      `SELECT bot_id, count(*) FILTER (WHERE state = 'pending')::int AS pending,
              count(*) FILTER (WHERE state = 'done')::int AS done,
              count(*) FILTER (WHERE state = 'failed')::int AS failed
         FROM delivery_redrive_items WHERE job_id = $1
        GROUP BY bot_id ORDER BY bot_id`,
      [jobId],
    );
  }

  /** running → cancelled; false when the job had already ended. */
  async cancel(manager: EntityManager, jobId: string): Promise<boolean> {
    const [, count]: [unknown[], number] = await manager.query(
      `UPDATE delivery_redrive_jobs SET status = 'cancelled', finished_at = now(), updated_at = now()
        WHERE id = $1 AND status = 'running'`,
      [jobId],
    );
    return count > 0;
  }

  /**
   * Running jobs created over `olderThanMs` ago (the outbox of the redrive queue: each needs a queued
   * BullMQ job).
   */
  async running(limit: number, olderThanMs: number): Promise<Array<{ id: string }>> {
    return (await runNamed<{ id: string }>(this.dataSource, RUNNING_JOBS, [limit, olderThanMs])).rows;
  }

  /** The job row locked for one step, with its kind and pace; undefined unless it is still running. */
  async lockRunning(
    manager: EntityManager,
    jobId: string,
  ): Promise<{ kind: RedriveJobKind; rate_per_bot: number } | undefined> {
    const rows: Array<{ kind: RedriveJobKind; rate_per_bot: number }> = await manager.query(
      `SELECT kind, rate_per_bot FROM delivery_redrive_jobs WHERE id = $1 AND status = 'running' FOR UPDATE`,
      [jobId],
    );
    return rows[0];
  }

  /** The next pending dead letters of the job: at most `perBot` of each bot, in update order. */
  next(manager: EntityManager, jobId: string, perBot: number): Promise<NextItem[]> {
    return manager.query(
      `SELECT delivery_id, bot_id FROM (
         SELECT delivery_id, bot_id, update_seq,
                row_number() OVER (PARTITION BY bot_id ORDER BY update_seq) AS place
           FROM delivery_redrive_items WHERE job_id = $1 AND state = 'pending') n
        WHERE place <= $2
        ORDER BY bot_id, update_seq`,
      [jobId, perBot],
    );
  }

  /**
   * Marks items handled: `done` for the restarted ones, `failed` with the reason for the rest. Only
   * pending items move, so an item is taken once per job even if two workers ever overlap.
   */
  async settle(manager: EntityManager, jobId: string, done: string[], failed: string[], reason: string): Promise<void> {
    await manager.query(
      `UPDATE delivery_redrive_items i
          SET state = CASE WHEN i.delivery_id = ANY($2::uuid[]) THEN 'done' ELSE 'failed' END,
              error = CASE WHEN i.delivery_id = ANY($2::uuid[]) THEN NULL ELSE $4 END,
              processed_at = now()
        WHERE i.job_id = $1 AND i.state = 'pending' AND (i.delivery_id = ANY($2::uuid[]) OR i.delivery_id = ANY($3::uuid[]))`,
      [jobId, done, failed, reason],
    );
    await manager.query(`UPDATE delivery_redrive_jobs SET updated_at = now() WHERE id = $1`, [jobId]);
  }

  /**
   * Takes the listed items for this step: pending → locked by this transaction. Returns those that
   * were still pending, so a concurrent step cannot take them too.
   */
  async take(manager: EntityManager, jobId: string, deliveryIds: string[]): Promise<string[]> {
    const rows: Array<{ delivery_id: string }> = await manager.query(
      `SELECT delivery_id FROM delivery_redrive_items
        WHERE job_id = $1 AND delivery_id = ANY($2::uuid[]) AND state = 'pending'
        FOR UPDATE SKIP LOCKED`,
      [jobId, deliveryIds],
    );
    return rows.map((row) => row.delivery_id);
  }

  /** running → completed once nothing is pending; true when it just completed. */
  async completeIfDrained(manager: EntityManager, jobId: string): Promise<boolean> {
    const [, count]: [unknown[], number] = await manager.query(
      `UPDATE delivery_redrive_jobs SET status = 'completed', finished_at = now(), updated_at = now()
        WHERE id = $1 AND status = 'running'
          AND NOT EXISTS (SELECT 1 FROM delivery_redrive_items WHERE job_id = $1 AND state = 'pending')`,
      [jobId],
    );
    return count > 0;
  }

  countRunning(): Promise<number> {
    return this.dataSource
      .query(`SELECT count(*)::int AS count FROM delivery_redrive_jobs WHERE status = 'running'`)
      .then((rows: Array<{ count: number }>) => rows[0].count);
  }
}
