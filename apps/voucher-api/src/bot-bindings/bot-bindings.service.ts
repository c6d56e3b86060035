import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiError } from '@app/envelope';
import { DataSource } from 'typeorm';
import { ApplicationsService } from '../applications/applications.service';
import { BotBinding } from './entities/bot-binding.entity';

export interface BotBindingView {
  application_id: string;
  bot_id: string;
  created_at: string;
}

function toView(binding: BotBinding): BotBindingView {
  return {
    application_id: binding.applicationId,
    bot_id: binding.botId,
    created_at: binding.createdAt.toISOString(),
  };
}

@Injectable()
export class BotBindingsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly applications: ApplicationsService,
  ) {}

  /** PUT semantics: binding an already bound bot returns the existing record unchanged. */
  bind(ownerId: string, applicationId: string, botId: string): Promise<BotBindingView> {
    return this.dataSource.transaction(async (manager) => {
      await this.applications.requireOwned(manager, ownerId, applicationId, { lock: true });
      await manager
        .createQueryBuilder()
        .insert()
        .into(BotBinding)
        .values({ applicationId, botId })
        .orIgnore()
        .execute();
      const binding = await manager.findOneByOrFail(BotBinding, { applicationId, botId });
      return toView(binding);
    });
  }

  unbind(ownerId: string, applicationId: string, botId: string): Promise<BotBindingView> {
    return this.dataSource.transaction(async (manager) => {
      await this.applications.requireOwned(manager, ownerId, applicationId, { lock: true });
      const binding = await manager.findOneBy(BotBinding, { applicationId, botId });
      if (!binding) throw ApiError.notFound('Bot binding');
      await manager.delete(BotBinding, { applicationId, botId });
      return toView(binding);
    });
  }
}
