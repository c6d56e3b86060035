import { Injectable } from '@nestjs/common';
import { DeliveryDomain } from '@app/bot-delivery';
import { Database } from '@app/platform';
import { BotConfig } from '../config/bot.config';
import { RedriveJobsStore, SYSTEM_ACTOR } from './redrive-jobs.store';
import { StaffAuditStore } from './staff-audit.store';
import type { RedriveFilterView } from './staff-deliveries.view';

/** Recovered bots handled per step: the marks are few, and the rest wait for the next step. */
const RECOVERIES_PER_STEP = 100;

/**
 * Self-healing dead letters. The dispatcher marks a bot recovered when its receiver answers 2xx
 * while the bot, with `auto_redeliver_dead_letters` on, has dead letters an automatic redrive may
 * take. This turns each mark into a redrive job of the system for that bot, worked off by the same
 * worker, at the same pace and in the same update order as the jobs staff start. A bot whose
 * automatic job still runs keeps its mark until the job ends; a mark with nothing left to take is
 * simply cleared.
 */
@Injectable()
export class AutomaticRedrives {
  constructor(
    private readonly database: Database,
    private readonly delivery: DeliveryDomain,
    private readonly jobs: RedriveJobsStore,
    private readonly audit: StaffAuditStore,
    private readonly config: BotConfig,
  ) {}

  /** Starts the automatic jobs of recovered bots; returns how many started. */
  async startDue(): Promise<number> {
    // The common step finds no mark: it costs one named statement instead of a transaction.
    if (!(await this.delivery.anyRecovered())) return 0;
    return this.database.transaction(async (tx) => {
      const recovered = await this.delivery.recoveredBots(tx, RECOVERIES_PER_STEP);
      const handled: string[] = [];
      let started = 0;
      for (const botId of recovered) {
        const filter: RedriveFilterView = {
          status: 'dead_letter',
          bot_id: botId,
          since: null,
          until: null,
          error: null,
        };
        const rate = this.config.REDRIVE_RATE_PER_BOT;
        const { job, busy } = await this.jobs.createAutomatic(tx, botId, { ...filter }, rate);
        if (busy) continue;
        handled.push(botId);
        if (!job) continue;
        started++;
        await this.audit.record(tx, {
          actorId: SYSTEM_ACTOR,
          action: 'redrive.auto_start',
          target: job.id,
          filter: { ...filter },
          counts: { total: job.total, rate_per_bot: rate },
        });
      }
      await this.delivery.clearRecovered(tx, handled);
      return started;
    });
  }
}
