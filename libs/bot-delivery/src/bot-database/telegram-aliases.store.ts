import { db, prepared } from '@app/bot-schema';
import { Database } from '@app/platform';
import { sql } from 'kysely';

export type TelegramAliasKind = 'chat' | 'user';

/**
 * Gives every native id its integer alias in one statement: new ones are inserted, existing ones read.
 * The read half sees the statement's snapshot, so an alias committed by a concurrent call meanwhile is
 * missing from the answer; {@link TelegramAliasesStore.aliases} asks once more for those.
 */
const ENSURE_ALIASES = prepared(
  'bot_telegram_aliases_ensure',
  (db, p: { kind: TelegramAliasKind; nativeIds: string[] }) =>
    db
      .with('input', (qb) => qb.selectNoFrom(sql<string>`unnest(${p.nativeIds}::varchar[])`.as('native_id')).distinct())
      .with('inserted', (qb) =>
        qb
          .insertInto('telegram_aliases')
          .columns(['kind', 'native_id'])
          .expression((eb) =>
            eb.selectFrom('input').select([sql<TelegramAliasKind>`${p.kind}`.as('kind'), 'native_id']),
          )
          .onConflict((oc) => oc.columns(['kind', 'native_id']).doNothing())
          .returning(['alias', 'native_id']),
      )
      .selectFrom('inserted')
      .select(['alias', 'native_id'])
      .unionAll((eb) =>
        eb
          .selectFrom('telegram_aliases as a')
          .innerJoin('input as i', 'i.native_id', 'a.native_id')
          .select(['a.alias', 'a.native_id'])
          .where('a.kind', '=', p.kind),
      ),
);

const NATIVE_OF = prepared('bot_telegram_aliases_native', (db, p: { kind: TelegramAliasKind; alias: number }) =>
  db
    .selectFrom('telegram_aliases')
    .select('native_id')
    .where('kind', '=', p.kind)
    .where('alias', '=', sql<string>`${p.alias}`),
);

/**
 * The integer aliases of the Telegram-compatible face (bot-api's answers, bot-dispatcher's Telegram
 * webhook bodies): each native id gets one the first time it is shown and keeps it. Every statement
 * on `telegram_aliases` is here; both processes reach it through DeliveryDomain.
 */
export class TelegramAliasesStore {
  constructor(private readonly database: Database) {}

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
    const row = await NATIVE_OF.first(this.database, { kind, alias });
    return row?.native_id ?? null;
  }

  private async ensure(kind: TelegramAliasKind, ids: readonly string[]): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    let missing = [...new Set(ids)];
    for (let attempt = 0; attempt < 2 && missing.length > 0; attempt += 1) {
      const rows = await ENSURE_ALIASES.all(this.database, { kind, nativeIds: missing });
      for (const row of rows) found.set(row.native_id, Number(row.alias));
      missing = missing.filter((id) => !found.has(id));
    }
    if (missing.length > 0) throw new Error(`Telegram aliases could not be given to ${missing.length} ${kind} ids`);
    return found;
  }
}
