import { Injectable } from '@nestjs/common';
import { Database, isUuid } from '@app/platform';
import { DeliveryDomain, RedriveFilter } from '@app/bot-delivery';
import { BotErrors } from '../bot-errors';
import { BotConfig } from '../config/bot.config';
import { assertWindow, decodeCursor, encodeCursor } from './cursor';
import { PageAfterQueryDto, RedriveBodyDto, StartRedriveDto } from './dto/staff-deliveries.dto';
import { RedriveJobRow, RedriveJobsStore } from './redrive-jobs.store';
import { RedriveQueue } from './redrive-queue';
import { StaffAuditStore } from './staff-audit.store';
import {
  RedriveDryRunView,
  RedriveFilterView,
  RedriveJobPage,
  RedriveJobView,
  RedriveProgressView,
} from './staff-deliveries.view';

/** Bulk redelivery by filter: the dry run, the job that does it in the background, its progress and cancel. */
@Injectable()
export class RedriveJobsService {
  constructor(
    private readonly database: Database,
    private readonly delivery: DeliveryDomain,
    private readonly jobs: RedriveJobsStore,
    private readonly audit: StaffAuditStore,
    private readonly config: BotConfig,
    private readonly queue: RedriveQueue,
  ) {}

  /** How many dead letters, per bot, a redrive with this filter would take now. */
  async dryRun(staffId: string, dto: RedriveBodyDto): Promise<RedriveDryRunView> {
    const { filter, stored } = this.filterOf(dto);
    const perBot = await this.delivery.countRedrivable(filter);
    const wouldRedeliver = perBot.reduce((sum, row) => sum + row.count, 0);
    await this.audit.record(this.database, {
      actorId: staffId,
      action: 'redrive.dry_run',
      target: null,
      filter: { ...stored },
      counts: { would_redeliver: wouldRedeliver, bots: perBot.length },
    });
    return { filter: stored, would_redeliver: wouldRedeliver, per_bot: perBot };
  }

  /** A job that takes exactly what the dry run counts, and works it off in the background. */
  async start(staffId: string, dto: StartRedriveDto): Promise<RedriveProgressView> {
    const { filter, stored } = this.filterOf(dto);
    const ratePerBot = dto.rate_per_bot ?? this.config.REDRIVE_RATE_PER_BOT;
    const job = await this.database.transaction(async (tx) => {
      const created = await this.jobs.create(tx, filter, { ...stored }, ratePerBot, staffId);
      await this.audit.record(tx, {
        actorId: staffId,
        action: 'redrive.start',
        target: created.id,
        filter: { ...stored },
        counts: { total: created.total, rate_per_bot: ratePerBot },
      });
      return created;
    });
    // Queued once committed: the queued step must find its job.
    void this.queue.enqueue([job.id]);
    return this.progress(job.id);
  }

  async progress(jobId: string): Promise<RedriveProgressView> {
    const job = isUuid(jobId) ? await this.jobs.find(jobId) : undefined;
    if (!job) throw BotErrors.notFound('Redrive job');
    const counts = await this.jobs.countsPerBot(job.id);
    const sum = (pick: (row: (typeof counts)[number]) => number) => counts.reduce((total, row) => total + pick(row), 0);
    return {
      ...this.summaryOf(job),
      done: sum((row) => row.done),
      failed: sum((row) => row.failed),
      pending: sum((row) => row.pending),
      per_bot: counts.map((row) => ({ ...row, total: row.pending + row.done + row.failed })),
    };
  }

  async recent(query: PageAfterQueryDto): Promise<RedriveJobPage> {
    const limit = query.pageSize ?? 20;
    const before = decodeCursor(query.cursor);
    if (before && !isUuid(before.id)) throw BotErrors.invalid('cursor is not one this API returned');
    const rows = await this.jobs.recent(limit + 1, before && { createdAt: before.at, id: before.id });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map((job) => this.summaryOf(job)),
      next_cursor: rows.length > limit && last ? encodeCursor(new Date(last.created_at).toISOString(), last.id) : null,
    };
  }

  /** Stops a running job: what it restarted stays restarted, the rest is left as it is. */
  async cancel(staffId: string, jobId: string): Promise<RedriveProgressView> {
    if (!isUuid(jobId)) throw BotErrors.notFound('Redrive job');
    await this.database.transaction(async (tx) => {
      const job = await this.jobs.find(jobId, tx);
      if (!job) throw BotErrors.notFound('Redrive job');
      if (!(await this.jobs.cancel(tx, jobId))) {
        throw BotErrors.error(
          'CONFLICT',
          `The redrive job has already ${job.status === 'completed' ? 'completed' : 'been cancelled'}`,
        );
      }
      await this.audit.record(tx, {
        actorId: staffId,
        action: 'redrive.cancel',
        target: jobId,
        filter: job.filter,
        counts: await this.settledCounts(job),
      });
    });
    return this.progress(jobId);
  }

  /** What a job had done when it stopped: written to the audit log of its cancel. */
  private async settledCounts(job: RedriveJobRow): Promise<Record<string, number>> {
    const counts = await this.jobs.countsPerBot(job.id);
    const sum = (pick: (row: (typeof counts)[number]) => number) => counts.reduce((total, row) => total + pick(row), 0);
    return {
      total: job.total,
      done: sum((row) => row.done),
      failed: sum((row) => row.failed),
      pending: sum((row) => row.pending),
    };
  }

  private filterOf(dto: RedriveBodyDto): { filter: RedriveFilter; stored: RedriveFilterView } {
    if ((dto.bot_id === undefined) === (dto.all_bots === undefined)) {
      throw BotErrors.invalid('give either bot_id or all_bots: true', [
        { field: 'all_bots', problem: 'exactly one of bot_id and all_bots: true' },
      ]);
    }
    assertWindow(dto.since, dto.until);
    const filter: RedriveFilter = {
      botId: dto.bot_id ?? null,
      since: dto.since ?? null,
      until: dto.until ?? null,
      errorClass: dto.error ?? null,
    };
    const stored: RedriveFilterView = {
      status: 'dead_letter',
      bot_id: filter.botId,
      since: filter.since,
      until: filter.until,
      error: filter.errorClass,
    };
    return { filter, stored };
  }

  private summaryOf(job: RedriveJobRow): RedriveJobView {
    return {
      id: job.id,
      status: job.status,
      kind: job.kind,
      filter: job.filter as unknown as RedriveFilterView,
      rate_per_bot: job.rate_per_bot,
      total: job.total,
      created_by: job.created_by,
      created_at: new Date(job.created_at).toISOString(),
      finished_at: job.finished_at ? new Date(job.finished_at).toISOString() : null,
    };
  }
}
