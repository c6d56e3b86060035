import { Injectable } from '@nestjs/common';
import { Database } from '@app/platform';
import { ApplicationsService } from '../applications/applications.service';
import { BotBindingsStore } from './bot-bindings.store';
import { BotBindingView, toBotBindingView } from './dto/bot-binding.view';
import { VoucherErrors } from '../voucher-errors';

@Injectable()
export class BotBindingsService {
  constructor(
    private readonly database: Database,
    private readonly applications: ApplicationsService,
    private readonly store: BotBindingsStore,
  ) {}

  /** PUT semantics: binding an already bound bot returns the existing record unchanged. */
  bind(ownerId: string, applicationId: string, botId: string): Promise<BotBindingView> {
    return this.database.transaction(async (tx) => {
      await this.applications.requireOwned(tx, ownerId, applicationId, { lock: true });
      return toBotBindingView(await this.store.bind(tx, applicationId, botId));
    });
  }

  unbind(ownerId: string, applicationId: string, botId: string): Promise<BotBindingView> {
    return this.database.transaction(async (tx) => {
      await this.applications.requireOwned(tx, ownerId, applicationId, { lock: true });
      const binding = await this.store.find(tx, applicationId, botId);
      if (!binding) throw VoucherErrors.notFound('Bot binding');
      await this.store.delete(tx, applicationId, botId);
      return toBotBindingView(binding);
    });
  }
}
