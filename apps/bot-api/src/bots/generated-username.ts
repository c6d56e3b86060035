/** Telegram's rule for bots, kept for the usernames the service picks: they end in `bot`. */
const SUFFIX = 'bot';
const USERNAME_MAX = 64;
/** Numbered forms tried after the plain one, before the form that carries the bot id. */
const NUMBERED_FORMS = 19;
/** Length of the bot id slice that names a bot whose name has no Latin letter to derive from. */
const ID_SLICE = 8;

/**
 * The words of a bot's name a username can carry: accents dropped, Latin letters and digits only,
 * lower case, joined by `_`, starting with a letter; a last word `bot` is left for the suffix.
 * Empty when the name has no Latin letter.
 */
export function usernameStem(name: string): string {
  const words = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^[^a-z]+/, '')
    .split('_')
    .filter((word) => word !== '');
  if (words.length > 1 && words[words.length - 1] === SUFFIX) words.pop();
  return words.join('_');
}

function withSuffix(stem: string, middle: string): string {
  const tail = `${middle}_${SUFFIX}`;
  const head = stem.slice(0, USERNAME_MAX - tail.length).replace(/_+$/, '');
  return `${head}${tail}`;
}

/**
 * The usernames a bot that applied without one may get, in order of preference: `<stem>_bot`, then
 * `<stem>_2_bot` … `<stem>_20_bot`, then `<stem>_<bot id>_bot`, which no other generated name can be.
 * Each matches BOT_USERNAME_PATTERN (a letter first, at most 64 characters).
 */
export function usernameCandidates(name: string, botId: string): string[] {
  const stem = usernameStem(name) || `${SUFFIX}_${botId.slice(0, ID_SLICE)}`;
  const numbered = Array.from({ length: NUMBERED_FORMS }, (_, i) => withSuffix(stem, `_${i + 2}`));
  return [withSuffix(stem, ''), ...numbered, withSuffix(stem, `_${botId}`)];
}
