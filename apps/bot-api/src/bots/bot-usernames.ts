import type { SqlTarget } from '@app/platform';
import { BotErrors } from '../bot-errors';
import type { BotsStore } from './bots.store';
import { usernameCandidates } from './generated-username';

/**
 * Gives a bot that has no username one derived from its name, unique like a chosen one (Telegram's getMe
 * always has a username, and frameworks match `/command@username` with it); the developer may change it
 * afterwards. Runs inside the caller's transaction (the approval, or the next change of an older bot).
 *
 * Each round takes the first candidate nobody holds; a concurrent approval that took the same one first
 * makes the unique index refuse it, and the next round skips it. Every round settles one candidate, so
 * the form with the bot id (unique to this bot) ends the search.
 */
export async function assignGeneratedUsername(
  bots: BotsStore,
  on: SqlTarget,
  botId: string,
  name: string,
): Promise<string> {
  const candidates = usernameCandidates(name, botId);
  const refused = new Set<string>();
  for (let round = 0; round < candidates.length; round++) {
    const taken = await bots.takenUsernames(on, candidates, botId);
    const free = candidates.find((candidate) => !taken.has(candidate) && !refused.has(candidate));
    if (free === undefined) break;
    if (await bots.claimUsername(on, botId, free)) return free;
    refused.add(free);
  }
  throw BotErrors.error('CONFLICT', 'No username derived from the bot name is free; give the bot a username first');
}
