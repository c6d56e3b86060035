/** What group privacy mode looks at in a message (spec 6.4). */
export interface PrivacyMessage {
  /** Text, or the caption of a media message. */
  text: string | null;
  mentions: readonly string[];
  /** Sender of the message this one replies to, if any. */
  replyToSenderId: string | null;
}

export interface PrivacyBot {
  systemUserId: string;
  username: string | null;
}

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `@name` as a whole handle: `@shopbot` must not match inside `@shopbot_admin`. */
export function mentionsHandle(text: string, username: string): boolean {
  return new RegExp(`@${escapeRegExp(username)}(?![A-Za-z0-9_])`, 'i').test(text);
}

export function isCommand(text: string | null): boolean {
  const first = (text ?? '').trimStart().split(/\s+/, 1)[0];
  return first.startsWith('/');
}

/**
 * Whether a bot in privacy mode sees a group message: a command, its @username in the text
 * (case-insensitive), a reply to one of its messages, or a mentions entry naming its user id or username.
 */
export function groupMessageVisibleTo(bot: PrivacyBot, message: PrivacyMessage): boolean {
  if (isCommand(message.text)) return true;
  if (bot.username && message.text && mentionsHandle(message.text, bot.username)) return true;
  if (message.replyToSenderId === bot.systemUserId) return true;
  const username = bot.username?.toLowerCase();
  return message.mentions.some((entry) => {
    if (entry === bot.systemUserId) return true;
    const handle = entry.startsWith('@') ? entry.slice(1) : entry;
    return username !== undefined && handle.toLowerCase() === username;
  });
}
