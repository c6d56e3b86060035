import { Injectable } from '@nestjs/common';
import { execute, executeFirst, SqlTarget } from '@app/platform';
import { db } from '../database/query';
import type { BotBindingSource } from './dto/bot-binding.view';

const BINDING = ['application_id as applicationId', 'bot_id as botId', 'created_at as createdAt'] as const;

/** The owner of `bot_bindings`: which bots belong to which application. */
@Injectable()
export class BotBindingsStore {
  /** Records the binding unless it exists; either way returns the stored record. */
  async bind(on: SqlTarget, applicationId: string, botId: string): Promise<BotBindingSource> {
    await execute(
      on,
      db
        .insertInto('bot_bindings')
        .values({ application_id: applicationId, bot_id: botId })
        .onConflict((oc) => oc.doNothing()),
    );
    return (await this.find(on, applicationId, botId))!;
  }

  find(on: SqlTarget, applicationId: string, botId: string): Promise<BotBindingSource | undefined> {
    return executeFirst(
      on,
      db
        .selectFrom('bot_bindings')
        .select(BINDING)
        .where('application_id', '=', applicationId)
        .where('bot_id', '=', botId),
    );
  }

  async delete(on: SqlTarget, applicationId: string, botId: string): Promise<void> {
    await execute(
      on,
      db.deleteFrom('bot_bindings').where('application_id', '=', applicationId).where('bot_id', '=', botId),
    );
  }
}
