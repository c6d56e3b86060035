import { Injectable } from '@nestjs/common';
import { db, prepared, type DeliveryRedriveJobs } from '@app/bot-schema';
import { autoRedrivableDeadLetters, redrivableDeadLetters, RedriveFilter } from '@app/bot-delivery';
import { Database, execute, executeAll, executeFirst, RowOf, SqlTarget } from '@app/platform';
import { sql, type Selectable } from 'kysely';

export type RedriveJobStatus = 'running' | 'completed' | 'cancelled';
/** Started by platform staff, or by the system when a bot's receiver recovered (self-healing dead letters). */
export type RedriveJobKind = 'staff' | 'auto';
export const REDRIVE_JOB_KINDS: readonly RedriveJobKind[] = ['staff', 'auto'];

/*
 * Literal values the partial indexes name (delivery_redrive_jobs_running, delivery_redrive_jobs_one_auto_per_bot)
 * stay literals in the SQL: a prepared statement's generic plan cannot match a partial index on a parameter.
 */
const RUNNING = sql.lit('running' as const);
const PENDING = sql.lit('pending' as const);

/** Asked every redrive step (a lost queue job is re-queued), so prepared once per connection. */
const RUNNING_JOBS = prepared('delivery_redrive_jobs_running', (db, p: { limit: number; olderThanMs: number }) =>
  db
    .selectFrom('delivery_redrive_jobs')
    .select('id')
    .where('status', '=', RUNNING)
    .where('created_at', '<', sql<Date>`now() - make_interval(secs => ${p.olderThanMs}::double precision / 1000)`)
    .orderBy('created_at')
    .limit(p.limit),
);

/** The actor of automatic jobs, in the job and in the audit log. */
export const SYSTEM_ACTOR = 'system';

const JOB_COLUMNS = [
  'id',
  'status',
  'kind',
  'filter',
  'rate_per_bot',
  'total',
  'created_by',
  'created_at',
  'updated_at',
  'finished_at',
] as const;

/** A job as its statements return it; its filter as staff or the system stored it: an object. */
export type RedriveJobRow = Omit<Pick<Selectable<DeliveryRedriveJobs>, (typeof JOB_COLUMNS)[number]>, 'filter'> & {
  filter: Record<string, unknown>;
};

function itemCounts(jobId: string) {
  return db
    .selectFrom('delivery_redrive_items')
    .select([
      'bot_id',
      sql<number>`count(*) FILTER (WHERE state = 'pending')::int`.as('pending'),
      sql<number>`count(*) FILTER (WHERE state = 'done')::int`.as('done'),
      sql<number>`count(*) FILTER (WHERE state = 'failed')::int`.as('failed'),
    ])
    .where('job_id', '=', jobId)
    .groupBy('bot_id')
    .orderBy('bot_id');
}

export type RedriveItemCounts = RowOf<ReturnType<typeof itemCounts>>;

/** The next pending dead letters of a job: at most `perBot` of each bot, in update order. */
function nextItems(jobId: string, perBot: number) {
  return db
    .selectFrom((eb) =>
      eb
        .selectFrom('delivery_redrive_items')
        .select([
          'delivery_id',
          'bot_id',
          'update_seq',
          sql<string>`row_number() OVER (PARTITION BY bot_id ORDER BY update_seq)`.as('place'),
        ])
        .where('job_id', '=', jobId)
        .where('state', '=', PENDING)
        .as('n'),
    )
    .select(['delivery_id', 'bot_id'])
    .where('place', '<=', sql<string>`${perBot}`)
    .orderBy('bot_id')
    .orderBy('update_seq');
}

export type NextItem = RowOf<ReturnType<typeof nextItems>>;

/**
 * Takes the dead letters `redrivable` selects into the job and counts them into its total, in one
 * statement (one snapshot, so the total is exact).
 */
function takeInto(jobId: string, redrivable: ReturnType<typeof redrivableDeadLetters>) {
  return db
    .with('taken', (db) =>
      db
        .insertInto('delivery_redrive_items')
        .columns(['job_id', 'delivery_id', 'bot_id', 'update_seq'])
        .expression(
          db
            .selectFrom(redrivable.as('r'))
            .select([sql<string>`${jobId}::uuid`.as('job_id'), 'r.delivery_id', 'r.bot_id', 'r.update_seq']),
        )
        .returning(sql.lit(1).as('one')),
    )
    .updateTable('delivery_redrive_jobs')
    .set((eb) => ({ total: eb.selectFrom('taken').select(sql<number>`count(*)`.as('count')) }))
    .where('id', '=', sql<string>`${jobId}::uuid`)
    .returning(JOB_COLUMNS)
    .$castTo<RedriveJobRow>();
}

/* A job's items are the delivery library's redrivable dead letters, taken in the statement that counts them into the job. */
const TAKE_REDRIVABLE = prepared('delivery_redrive_jobs_take', (_db, p: RedriveFilter & { jobId: string }) =>
  takeInto(p.jobId, redrivableDeadLetters(p)),
);

const TAKE_AUTO_REDRIVABLE = prepared('delivery_redrive_jobs_take_auto', (_db, p: { botId: string; jobId: string }) =>
  takeInto(p.jobId, autoRedrivableDeadLetters(p)),
);

/** Redrive jobs and the dead letters each one took: the only SQL on those two tables. */
@Injectable()
export class RedriveJobsStore {
  constructor(private readonly database: Database) {}

  /** A running job whose items are the redrivable dead letters matching the filter at this instant. */
  async create(
    on: SqlTarget,
    filter: RedriveFilter,
    stored: Record<string, unknown>,
    ratePerBot: number,
    createdBy: string,
  ): Promise<RedriveJobRow> {
    const job = await executeFirst(
      on,
      db
        .insertInto('delivery_redrive_jobs')
        .values({ filter: JSON.stringify(stored), rate_per_bot: ratePerBot, total: 0, created_by: createdBy })
        .returning(JOB_COLUMNS)
        .$castTo<RedriveJobRow>(),
    );
    return (await TAKE_REDRIVABLE.first(on, { ...filter, jobId: job!.id }))!;
  }

  /**
   * The automatic job of a recovered bot: its dead letters that an automatic redrive may take, in a
   * running job by the system. Undefined when the bot has an automatic job running already (at most
   * one per bot; its recovery waits for it) or nothing to take; `busy` tells the two apart.
   */
  async createAutomatic(
    on: SqlTarget,
    botId: string,
    stored: Record<string, unknown>,
    ratePerBot: number,
  ): Promise<{ job?: RedriveJobRow; busy: boolean }> {
    const job = await executeFirst(
      on,
      db
        .insertInto('delivery_redrive_jobs')
        .values({
          kind: sql.lit('auto'),
          bot_id: botId,
          filter: JSON.stringify(stored),
          rate_per_bot: ratePerBot,
          total: 0,
          created_by: SYSTEM_ACTOR,
        })
        .onConflict((conflict) =>
          conflict.column('bot_id').where('kind', '=', sql.lit('auto')).where('status', '=', RUNNING).doNothing(),
        )
        .returning(JOB_COLUMNS)
        .$castTo<RedriveJobRow>(),
    );
    if (!job) return { busy: true };
    const updated = (await TAKE_AUTO_REDRIVABLE.first(on, { botId, jobId: job.id }))!;
    if (updated.total > 0) return { job: updated, busy: false };
    await execute(on, db.deleteFrom('delivery_redrive_jobs').where('id', '=', job.id));
    return { busy: false };
  }

  find(jobId: string, on: SqlTarget = this.database): Promise<RedriveJobRow | undefined> {
    return executeFirst(
      on,
      db.selectFrom('delivery_redrive_jobs').select(JOB_COLUMNS).where('id', '=', jobId).$castTo<RedriveJobRow>(),
    );
  }

  /** Newest first, after the keyset (created_at, id) of the last one seen. */
  recent(limit: number, before: { createdAt: string; id: string } | null): Promise<RedriveJobRow[]> {
    const at = before?.createdAt ?? null;
    return executeAll(
      this.database,
      db
        .selectFrom('delivery_redrive_jobs')
        .select(JOB_COLUMNS)
        .where(
          sql<boolean>`(${at}::timestamptz IS NULL OR (created_at, id) < (${at}::timestamptz, ${before?.id ?? null}::uuid))`,
        )
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .$castTo<RedriveJobRow>(),
    );
  }

  countsPerBot(jobId: string): Promise<RedriveItemCounts[]> {
    return executeAll(this.database, itemCounts(jobId));
  }

  /** running → cancelled; false when the job had already ended. */
  async cancel(on: SqlTarget, jobId: string): Promise<boolean> {
    const { rowCount } = await execute(
      on,
      db
        .updateTable('delivery_redrive_jobs')
        .set({ status: sql.lit('cancelled'), finished_at: sql<Date>`now()`, updated_at: sql<Date>`now()` })
        .where('id', '=', jobId)
        .where('status', '=', RUNNING),
    );
    return (rowCount ?? 0) > 0;
  }

  /**
   * Running jobs created over `olderThanMs` ago (the outbox of the redrive queue: each needs a queued
   * BullMQ job).
   */
  running(limit: number, olderThanMs: number): Promise<Array<RowOf<typeof RUNNING_JOBS>>> {
    return RUNNING_JOBS.all(this.database, { limit, olderThanMs });
  }

  /** The job row locked for one step, with its kind and pace; undefined unless it is still running. */
  lockRunning(on: SqlTarget, jobId: string): Promise<{ kind: RedriveJobKind; rate_per_bot: number } | undefined> {
    return executeFirst(
      on,
      db
        .selectFrom('delivery_redrive_jobs')
        .select(['kind', 'rate_per_bot'])
        .where('id', '=', jobId)
        .where('status', '=', RUNNING)
        .forUpdate(),
    );
  }

  /** The next pending dead letters of the job: at most `perBot` of each bot, in update order. */
  next(on: SqlTarget, jobId: string, perBot: number): Promise<NextItem[]> {
    return executeAll(on, nextItems(jobId, perBot));
  }

  /**
   * Marks items handled: `done` for the restarted ones, `failed` with the reason for the rest. Only
   * pending items move, so an item is taken once per job even if two workers ever overlap.
   */
  async settle(on: SqlTarget, jobId: string, done: string[], failed: string[], reason: string): Promise<void> {
    const restarted = sql<boolean>`i.delivery_id = ANY(${done}::uuid[])`;
    await execute(
      on,
      db
        .updateTable('delivery_redrive_items as i')
        .set({
          state: sql<'done' | 'failed'>`CASE WHEN ${restarted} THEN 'done' ELSE 'failed' END`,
          error: sql<string | null>`CASE WHEN ${restarted} THEN NULL ELSE ${reason}::text END`,
          processed_at: sql<Date>`now()`,
        })
        .where('i.job_id', '=', jobId)
        .where('i.state', '=', PENDING)
        .where(sql<boolean>`(${restarted} OR i.delivery_id = ANY(${failed}::uuid[]))`),
    );
    await execute(
      on,
      db
        .updateTable('delivery_redrive_jobs')
        .set({ updated_at: sql<Date>`now()` })
        .where('id', '=', jobId),
    );
  }

  /**
   * Takes the listed items for this step: pending → locked by this transaction. Returns those that
   * were still pending, so a concurrent step cannot take them too.
   */
  async take(on: SqlTarget, jobId: string, deliveryIds: string[]): Promise<string[]> {
    const rows = await executeAll(
      on,
      db
        .selectFrom('delivery_redrive_items')
        .select('delivery_id')
        .where('job_id', '=', jobId)
        .where(sql<boolean>`delivery_id = ANY(${deliveryIds}::uuid[])`)
        .where('state', '=', PENDING)
        .forUpdate()
        .skipLocked(),
    );
    return rows.map((row) => row.delivery_id);
  }

  /** running → completed once nothing is pending; true when it just completed. */
  async completeIfDrained(on: SqlTarget, jobId: string): Promise<boolean> {
    const { rowCount } = await execute(
      on,
      db
        .updateTable('delivery_redrive_jobs')
        .set({ status: sql.lit('completed'), finished_at: sql<Date>`now()`, updated_at: sql<Date>`now()` })
        .where('id', '=', jobId)
        .where('status', '=', RUNNING)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('delivery_redrive_items')
                .select(sql<number>`1`.as('one'))
                .where('job_id', '=', jobId)
                .where('state', '=', PENDING),
            ),
          ),
        ),
    );
    return (rowCount ?? 0) > 0;
  }

  async countRunning(): Promise<number> {
    const row = await executeFirst(
      this.database,
      db
        .selectFrom('delivery_redrive_jobs')
        .select(sql<number>`count(*)::int`.as('count'))
        .where('status', '=', RUNNING),
    );
    return row!.count;
  }
}
