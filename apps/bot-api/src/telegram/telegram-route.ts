/**
 * Where the Telegram face lives: at the root, as Telegram's own server serves it (`/bot<token>/…`,
 * `/file/bot<token>/…`), so a framework's API root is the service's base URL; and under `/telegram`
 * for roots set before the face moved.
 */
export const TELEGRAM_ROUTE_PREFIXES = ['/telegram/', '/bot', '/file/bot'] as const;

/** Whether a request path belongs to the Telegram face. */
export function isTelegramPath(path: string): boolean {
  return TELEGRAM_ROUTE_PREFIXES.some((prefix) => path.startsWith(prefix));
}
