import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApplicationsService } from '../applications/applications.service';
import { BotBindingsStore } from './bot-bindings.store';
import { BotBindingView, toBotBindingView } from './dto/bot-binding.view';
import { VoucherErrors } from '../voucher-errors';

@Injectable()
export class BotBindingsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly applications: ApplicationsService,
    private readonly store: BotBindingsStore,
  ) {}

  /** PUT semantics: binding an already bound bot returns the existing record unchanged. */
  bind(ownerId: string, applicationId: string, botId: string): Promise<BotBindingView> {
    return this.dataSource.transaction(async (manager) => {
      await this.applications.requireOwned(manager, ownerId, applicationId, { lock: true });
      return toBotBindingView(await this.store.bind(manager, applicationId, botId));
    });
  }

  unbind(ownerId: string, applicationId: string, botId: string): Promise<BotBindingView> {
    return this.dataSource.transaction(async (manager) => {
      await this.applications.requireOwned(manager, ownerId, applicationId, { lock: true });
      const binding = await this.store.find(manager, applicationId, botId);
      if (!binding) throw VoucherErrors.notFound('Bot binding');
      await this.store.delete(manager, applicationId, botId);
      return toBotBindingView(binding);
    });
  }
}
