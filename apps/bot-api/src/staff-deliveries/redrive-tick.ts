import { Injectable } from '@nestjs/common';
import type { PeriodicTask } from '@app/coordination';
import { BotConfig } from '../config/bot.config';
import { AutomaticRedrives } from './automatic-redrives';
import { RedriveJobsStore } from './redrive-jobs.store';
import { RedriveQueue } from './redrive-queue';

/** Running redrive jobs checked per tick for a lost BullMQ job; they are few (one per staff action or recovered bot). */
const RUNNING_PER_TICK = 500;

/**
 * A redrive job younger than this is its creator's to queue, right after its commit. Were the tick to
 * queue it first, the job would carry the tick's trace instead of the staff request's, and the
 * redrive's trace would no longer start at the request that asked for it. A job whose own enqueue
 * failed is queued by a tick after this.
 */
export const OWN_ENQUEUE_GRACE_MS = 5000;

/**
 * In the PostgreSQL-only mode a run of the tick is a queue job (claimed, its scheduler advanced,
 * finished, the worker's next wait) plus its own two reads: about eight statements, which every
 * second were nearly all that an idle bot-api ran. There the tick runs at least this seldom by
 * default; staff redrive jobs are queued by their own request and do not wait for it.
 */
export const POSTGRES_REDRIVE_TICK_MS = 30_000;

export function redriveTickMs(
  config: Pick<BotConfig, 'REDRIVE_TICK_MS' | 'REDRIVE_STEP_MS' | 'coordinationBackend'>,
): number {
  if (config.REDRIVE_TICK_MS > 0) return config.REDRIVE_TICK_MS;
  return config.coordinationBackend === 'postgres'
    ? Math.max(config.REDRIVE_STEP_MS, POSTGRES_REDRIVE_TICK_MS)
    : config.REDRIVE_STEP_MS;
}

/**
 * Every REDRIVE_TICK_MS (see redriveTickMs), once per cluster: starts the automatic redrive jobs of bots whose receiver
 * recovered (self-healing dead letters), and queues every running redrive job that has no BullMQ job
 * (past OWN_ENQUEUE_GRACE_MS).
 * A replica with REDRIVE_WORKER_ENABLED=false does not schedule it.
 */
@Injectable()
export class RedriveTick implements PeriodicTask {
  readonly everyMs: number;

  constructor(
    private readonly automatic: AutomaticRedrives,
    private readonly jobs: RedriveJobsStore,
    private readonly queue: RedriveQueue,
    config: BotConfig,
  ) {
    this.everyMs = config.REDRIVE_WORKER_ENABLED ? redriveTickMs(config) : 0;
  }

  async run(): Promise<void> {
    await this.automatic.startDue();
    const running = await this.jobs.running(RUNNING_PER_TICK, OWN_ENQUEUE_GRACE_MS);
    await this.queue.ensureQueued(running.map((job) => job.id));
  }
}
