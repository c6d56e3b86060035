import { preparedFor, queryBuilder } from '@app/platform';
import type { DB } from './schema.generated';

/**
 * The bot database's typed compiler, shared by bot-api, libs/bot-delivery and the dispatcher: every
 * statement built on it is checked against the migrated schema (schema.generated.ts) at compile time.
 */
export const db = queryBuilder<DB>();

/** A hot-path statement of the bot database, compiled once and run by name (see PreparedQuery). */
export const prepared = preparedFor(db);

export type BotDB = DB;
