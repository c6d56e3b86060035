import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { BotBinding } from './entities/bot-binding.entity';

/** The owner of `bot_bindings`: which bots belong to which application. */
@Injectable()
export class BotBindingsStore {
  /** Records the binding unless it exists; either way returns the stored record. */
  async bind(manager: EntityManager, applicationId: string, botId: string): Promise<BotBinding> {
    await manager.createQueryBuilder().insert().into(BotBinding).values({ applicationId, botId }).orIgnore().execute();
    return manager.findOneByOrFail(BotBinding, { applicationId, botId });
  }

  find(manager: EntityManager, applicationId: string, botId: string): Promise<BotBinding | null> {
    return manager.findOneBy(BotBinding, { applicationId, botId });
  }

  async delete(manager: EntityManager, applicationId: string, botId: string): Promise<void> {
    await manager.delete(BotBinding, { applicationId, botId });
  }
}
