import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { namedStatement, runNamed } from '@app/platform';
import type { AliasKind, AliasRequest } from '@app/telegram-shapes';
import { DataSource } from 'typeorm';

/**
 * Gives every native id its alias in one statement: new ones are inserted, existing ones read. The
 * read half sees the statement's snapshot, so an alias committed by a concurrent call meanwhile is
 * missing from the answer; the caller asks once more for those.
 */
const ENSURE_ALIASES = namedStatement(
  'bot_api_telegram_aliases_ensure',
  `WITH input AS (SELECT DISTINCT unnest($2::varchar[]) AS native_id),
   inserted AS (
     INSERT INTO telegram_aliases (kind, native_id)
     SELECT $1, native_id FROM input
     ON CONFLICT (kind, native_id) DO NOTHING
     RETURNING alias, native_id
   )
   SELECT alias, native_id FROM inserted
   UNION ALL
   SELECT a.alias, a.native_id FROM telegram_aliases a JOIN input i ON i.native_id = a.native_id WHERE a.kind = $1`,
);

const NATIVE_OF = namedStatement(
  'bot_api_telegram_aliases_native',
  `SELECT native_id FROM telegram_aliases WHERE kind = $1 AND alias = $2`,
);

/** The integer aliases of chats and users on the Telegram face (table telegram_aliases). */
@Injectable()
export class TelegramAliasesStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async aliases(wanted: AliasRequest): Promise<Record<AliasKind, Map<string, number>>> {
    const [chat, user] = await Promise.all([this.ensure('chat', [...wanted.chat]), this.ensure('user', [...wanted.user])]);
    return { chat, user };
  }

  /** The native id behind an alias, or null when no such alias was ever given. */
  async nativeOf(kind: AliasKind, alias: number): Promise<string | null> {
    if (!Number.isSafeInteger(alias) || alias <= 0) return null;
    const { rows } = await runNamed<{ native_id: string }>(this.dataSource, NATIVE_OF, [kind, alias]);
    return rows[0]?.native_id ?? null;
  }

  private async ensure(kind: AliasKind, ids: string[]): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    let missing = ids;
    for (let attempt = 0; attempt < 2 && missing.length > 0; attempt += 1) {
      const { rows } = await runNamed<{ alias: string; native_id: string }>(this.dataSource, ENSURE_ALIASES, [kind, missing]);
      for (const row of rows) found.set(row.native_id, Number(row.alias));
      missing = missing.filter((id) => !found.has(id));
    }
    if (missing.length > 0) throw new Error(`Telegram aliases could not be given to ${missing.length} ${kind} ids`);
    return found;
  }
}
