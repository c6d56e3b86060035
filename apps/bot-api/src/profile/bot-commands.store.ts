import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { CommandScopeDto } from './dto/profile.dto';
import { BotCommand, BotCommandSet } from './entities/bot-command-set.entity';

/** Which command list: the bot's, for one scope (by its canonical key) and one language ('' for all). */
export interface CommandSetKey {
  botId: string;
  scopeKey: string;
  languageCode: string;
}

/** Every statement on bot_commands: a bot's command list per (scope, language_code). */
@Injectable()
export class BotCommandsStore {
  /** Writes the list in place of the one stored under the same key. */
  async replace(
    manager: EntityManager,
    key: CommandSetKey,
    scope: CommandScopeDto,
    commands: BotCommand[],
  ): Promise<void> {
    await manager.upsert(BotCommandSet, { ...key, scope: { ...scope }, commands }, [
      'botId',
      'scopeKey',
      'languageCode',
    ]);
  }

  async find(manager: EntityManager, key: CommandSetKey): Promise<BotCommand[] | undefined> {
    const set = await manager.getRepository(BotCommandSet).findOneBy({ ...key });
    return set?.commands;
  }

  async delete(manager: EntityManager, key: CommandSetKey): Promise<void> {
    await manager.getRepository(BotCommandSet).delete({ ...key });
  }
}
