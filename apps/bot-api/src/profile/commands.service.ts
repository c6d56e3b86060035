import { Injectable } from '@nestjs/common';
import { Database } from '@app/platform';
import { BotErrors } from '../bot-errors';
import { CommandScopeDto, CommandsSelectorDto, SetMyCommandsDto } from './dto/profile.dto';
import { BotCommandsStore, CommandSetKey } from './bot-commands.store';
import { BotCommand } from './entities/bot-command-set.entity';

const CHAT_SCOPES = new Set(['chat', 'chat_administrators', 'chat_member']);

/** One scope object, one canonical key: `{type:"chat",chat_id:"c1"}` → `chat:c1`. */
export function scopeKeyOf(scope: CommandScopeDto | undefined): { scope: CommandScopeDto; key: string } {
  const given = scope ?? { type: 'default' as const };
  const needsChat = CHAT_SCOPES.has(given.type);
  const needsUser = given.type === 'chat_member';
  const problems: { field: string; problem: string }[] = [];
  if (needsChat && !given.chat_id) problems.push({ field: 'scope.chat_id', problem: `is required for ${given.type}` });
  if (!needsChat && given.chat_id !== undefined) {
    problems.push({ field: 'scope.chat_id', problem: `is not allowed for ${given.type}` });
  }
  if (needsUser && !given.user_id) problems.push({ field: 'scope.user_id', problem: 'is required for chat_member' });
  if (!needsUser && given.user_id !== undefined) {
    problems.push({ field: 'scope.user_id', problem: `is not allowed for ${given.type}` });
  }
  if (problems.length > 0) {
    throw BotErrors.invalid(
      `Validation failed: ${problems.map((p) => `${p.field}: ${p.problem}`).join('; ')}`,
      problems,
    );
  }
  const normal: CommandScopeDto = { type: given.type };
  if (needsChat) normal.chat_id = given.chat_id;
  if (needsUser) normal.user_id = given.user_id;
  const key = [normal.type, normal.chat_id, normal.user_id].filter((part) => part !== undefined).join(':');
  return { scope: normal, key };
}

/** Command lists per (scope, language_code), replaced as a whole like Telegram's setMyCommands. */
@Injectable()
export class CommandsService {
  constructor(
    private readonly database: Database,
    private readonly commandSets: BotCommandsStore,
  ) {}

  async set(botId: string, dto: SetMyCommandsDto): Promise<true> {
    const { scope, key } = this.selector(botId, dto);
    const names = dto.commands.map((c) => c.command);
    const duplicate = names.find((name, index) => names.indexOf(name) !== index);
    if (duplicate) {
      throw BotErrors.invalid(`Validation failed: commands: "${duplicate}" appears twice`, [
        { field: 'commands', problem: `command "${duplicate}" appears twice` },
      ]);
    }
    const commands: BotCommand[] = dto.commands.map((c) => ({ command: c.command, description: c.description }));
    await this.database.transaction(async (tx) => {
      if (commands.length === 0) await this.commandSets.delete(tx, key);
      else await this.commandSets.replace(tx, key, scope, commands);
    });
    return true;
  }

  async get(botId: string, dto: CommandsSelectorDto): Promise<BotCommand[]> {
    const { key } = this.selector(botId, dto);
    return (await this.commandSets.find(this.database, key)) ?? [];
  }

  async delete(botId: string, dto: CommandsSelectorDto): Promise<true> {
    const { key } = this.selector(botId, dto);
    await this.commandSets.delete(this.database, key);
    return true;
  }

  private selector(botId: string, dto: CommandsSelectorDto): { scope: CommandScopeDto; key: CommandSetKey } {
    const { scope, key } = scopeKeyOf(dto.scope);
    return { scope, key: { botId, scopeKey: key, languageCode: dto.language_code ?? '' } };
  }
}
