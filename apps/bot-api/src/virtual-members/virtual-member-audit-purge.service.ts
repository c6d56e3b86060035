import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { BotConfig } from '../config/bot.config';
import { VirtualMemberAuditStore } from './virtual-member-audit.store';

const PURGE_INTERVAL_MS = 60 * 60 * 1000;

/** Audit entries of virtual-member calls are kept VIRTUAL_MEMBER_AUDIT_RETENTION_DAYS, then purged hourly. */
@Injectable()
export class VirtualMemberAuditPurgeService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(VirtualMemberAuditPurgeService.name);
  private timer?: NodeJS.Timeout;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: VirtualMemberAuditStore,
    private readonly config: BotConfig,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => {
      this.purge().catch((error: Error) => this.logger.warn(`purge of old audit entries failed: ${error.message}`));
    }, PURGE_INTERVAL_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  purge(): Promise<number> {
    return this.audit.purgeOlderThan(this.dataSource.manager, this.config.VIRTUAL_MEMBER_AUDIT_RETENTION_DAYS);
  }
}
