import { sql } from 'kysely';

/** The state of a bot row that decides whether the bot may act. */
export interface BotAvailability {
  reviewStatus: string;
  status: string;
}

/** The one rule, in both forms below: a bot acts (calls methods, is delivered to) once approved and while enabled. */
const AVAILABLE = { reviewStatus: 'approved', status: 'enabled' } as const;

/** Whether the bot may act (bot-service spec 3.1). */
export function isBotAvailable(bot: BotAvailability): boolean {
  return bot.reviewStatus === AVAILABLE.reviewStatus && bot.status === AVAILABLE.status;
}

/** The same rule as an SQL condition on the `bots` row named `alias`. */
export function botAvailableSql(alias: string): string {
  return `${alias}.review_status = '${AVAILABLE.reviewStatus}' AND ${alias}.status = '${AVAILABLE.status}'`;
}

/** botAvailableSql as an expression of a statement builder. */
export function botAvailable(alias: string) {
  return sql<boolean>`${sql.raw(botAvailableSql(alias))}`;
}
