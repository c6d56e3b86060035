import { Injectable } from '@nestjs/common';
import type { PeriodicTask } from '@app/coordination';
import { Database } from '@app/platform';
import { BotConfig } from '../config/bot.config';
import { VirtualMemberAuditStore } from './virtual-member-audit.store';

/** Audit entries of virtual-member calls are kept VIRTUAL_MEMBER_AUDIT_RETENTION_DAYS, then purged hourly, once per cluster. */
@Injectable()
export class VirtualMemberAuditPurgeService implements PeriodicTask {
  readonly everyMs = 60 * 60 * 1000;

  constructor(
    private readonly database: Database,
    private readonly audit: VirtualMemberAuditStore,
    private readonly config: BotConfig,
  ) {}

  run(): Promise<number> {
    return this.purge();
  }

  purge(): Promise<number> {
    return this.audit.purgeOlderThan(this.database, this.config.VIRTUAL_MEMBER_AUDIT_RETENTION_DAYS);
  }
}
