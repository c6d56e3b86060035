import { Injectable } from '@nestjs/common';
import { execute, executeFirst, SqlTarget } from '@app/platform';
import { db } from '@app/bot-schema';
import { sql } from 'kysely';
import type { CommandScopeDto } from './dto/profile.dto';
import type { BotCommand } from './entities/bot-command-set.entity';

/** Which command list: the bot's, for one scope (by its canonical key) and one language ('' for all). */
export interface CommandSetKey {
  botId: string;
  scopeKey: string;
  languageCode: string;
}

/** A jsonb value as text: pg would send a JavaScript array as a PostgreSQL array, not as JSON. */
function jsonb(value: unknown): string {
  return JSON.stringify(value);
}

/** Every statement on bot_commands: a bot's command list per (scope, language_code). */
@Injectable()
export class BotCommandsStore {
  /** Writes the list in place of the one stored under the same key. */
  async replace(on: SqlTarget, key: CommandSetKey, scope: CommandScopeDto, commands: BotCommand[]): Promise<void> {
    await execute(
      on,
      db
        .insertInto('bot_commands')
        .values({
          bot_id: key.botId,
          scope_key: key.scopeKey,
          language_code: key.languageCode,
          scope: jsonb({ ...scope }),
          commands: jsonb(commands),
        })
        .onConflict((oc) =>
          oc.columns(['bot_id', 'scope_key', 'language_code']).doUpdateSet({
            scope: (eb) => eb.ref('excluded.scope'),
            commands: (eb) => eb.ref('excluded.commands'),
            updated_at: sql`now()`,
          }),
        ),
    );
  }

  async find(on: SqlTarget, key: CommandSetKey): Promise<BotCommand[] | undefined> {
    const set = await executeFirst(
      on,
      db
        .selectFrom('bot_commands')
        .select((eb) => eb.ref('commands').$castTo<BotCommand[]>().as('commands'))
        .where('bot_id', '=', key.botId)
        .where('scope_key', '=', key.scopeKey)
        .where('language_code', '=', key.languageCode),
    );
    return set?.commands;
  }

  async delete(on: SqlTarget, key: CommandSetKey): Promise<void> {
    await execute(
      on,
      db
        .deleteFrom('bot_commands')
        .where('bot_id', '=', key.botId)
        .where('scope_key', '=', key.scopeKey)
        .where('language_code', '=', key.languageCode),
    );
  }
}
