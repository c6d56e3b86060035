import { BotErrors } from '../bot-errors';
import type { AnswerOutcome } from './interaction-queries.store';

/** answerCallbackQuery and answerInlineQuery refuse alike: 404 unknown (or another bot's), 409 answered, 410 too late. */
export function assertAnswered(outcome: AnswerOutcome, what: 'Callback query' | 'Inline query'): void {
  if (outcome === 'answered') return;
  if (outcome === 'not_found') throw BotErrors.notFound(what);
  if (outcome === 'already_answered')
    throw BotErrors.error('CONFLICT', `The ${what.toLowerCase()} was already answered`);
  throw BotErrors.error(
    'QUERY_EXPIRED',
    `The ${what.toLowerCase()} can no longer be answered: its answer window has passed`,
  );
}
