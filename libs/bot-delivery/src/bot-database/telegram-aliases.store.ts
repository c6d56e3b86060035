import { namedStatement, runNamed } from '@app/platform';
import { DataSource } from 'typeorm';

export type TelegramAliasKind = 'chat' | 'user';

/**
 * Gives every native id its integer alias in one statement: new ones are inserted, existing ones read.
 * The read half sees the statement's snapshot, so an alias committed by a concurrent call meanwhile is
 * missing from the answer; {@link TelegramAliasesStore.aliases} asks once more for those.
 */
const ENSURE_ALIASES = namedStatement(
  'bot_telegram_aliases_ensure',
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
  'bot_telegram_aliases_native',
  `SELECT native_id FROM telegram_aliases WHERE kind = $1 AND alias = $2`,
);

/**
 * The integer aliases of the Telegram-compatible face (bot-api's answers, bot-dispatcher's Telegram
 * webhook bodies): each native id gets one the first time it is shown and keeps it. Every statement
 * on `telegram_aliases` is here; both processes reach it through DeliveryDomain.
 */
export class TelegramAliasesStore {
  constructor(private readonly dataSource: DataSource) {}

  /** The aliases of the wanted chats and users, given on first use. */
  async aliases(wanted: {
    chat: Iterable<string>;
    user: Iterable<string>;
  }): Promise<Record<TelegramAliasKind, Map<string, number>>> {
    const [chat, user] = await Promise.all([
      this.ensure('chat', [...wanted.chat]),
      this.ensure('user', [...wanted.user]),
    ]);
    return { chat, user };
  }

  /** The native id behind an alias, or null when no such alias was ever given. */
  async nativeOf(kind: TelegramAliasKind, alias: number): Promise<string | null> {
    if (!Number.isSafeInteger(alias) || alias <= 0) return null;
    const { rows } = await runNamed<{ native_id: string }>(this.dataSource, NATIVE_OF, [kind, alias]);
    return rows[0]?.native_id ?? null;
  }

  private async ensure(kind: TelegramAliasKind, ids: readonly string[]): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    let missing = [...new Set(ids)];
    for (let attempt = 0; attempt < 2 && missing.length > 0; attempt += 1) {
      const { rows } = await runNamed<{ alias: string; native_id: string }>(this.dataSource, ENSURE_ALIASES, [
        kind,
        missing,
      ]);
      for (const row of rows) found.set(row.native_id, Number(row.alias));
      missing = missing.filter((id) => !found.has(id));
    }
    if (missing.length > 0) throw new Error(`Telegram aliases could not be given to ${missing.length} ${kind} ids`);
    return found;
  }
}
