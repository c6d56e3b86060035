/**
 * Route-level request limits of bot-api (spec section 7, RATE_LIMITED), per minute and per subject.
 * They sit beside the bots' send quotas (BOT_RATE_LIMIT), which count messages, not requests.
 */
export const DEFAULT_ROUTE_RATE_LIMITS = {
  /** The public token check, per client address: the only route a caller without a credential reaches. */
  verify_token: 300,
  /** setWebhook resolves the URL's host on every call; per bot (bot route) or per account (developer route). */
  set_webhook: 60,
  /** The disk driver's signed byte routes (upload PUT, download GET), per client address: the URL is the credential. */
  file_transfer: 1200,
  /** Every other bot-token method, per bot; sends are limited further by the bot's send quotas. */
  bot: 3000,
  /** Client routes of an end user, per account. */
  'client.read': 600,
  'client.write': 120,
  /**
   * Button clicks and inline queries, per account: each one is an Update for a bot, so they have their
   * own budget below client.write and a user cannot flood a bot through them.
   */
  'client.callback_query': 60,
  'client.inline_query': 60,
  /** Developer routes (/my), per account. */
  developer: 300,
  /** Platform staff routes (/admin), per account. */
  staff: 600,
} as const;

export type RouteRateLimit = keyof typeof DEFAULT_ROUTE_RATE_LIMITS;

export interface RouteLimit {
  endpoint: RouteRateLimit;
  /** Whose counter the call goes to. */
  subject: 'address' | 'bot' | 'account';
}

const BASE = '/api/v1/bots/';
/**
 * The Telegram face counts against the same per-bot budgets, at the root (`/bot<token>/<method>`,
 * `/file/bot<token>/<path>`) as under `/telegram/`.
 */
const TELEGRAM_PATH = /^(?:\/telegram)?\/(file\/)?bot[^/]*\/([^/]*)/i;

/** A Telegram-face path's limit, per bot; null for a path that is not one. */
function telegramLimitOf(path: string): RouteLimit | null {
  const match = TELEGRAM_PATH.exec(path);
  if (!match) return path.startsWith('/telegram/') ? { endpoint: 'bot', subject: 'bot' } : null;
  const [, file, method] = match;
  return !file && method.toLowerCase() === 'setwebhook'
    ? { endpoint: 'set_webhook', subject: 'bot' }
    : { endpoint: 'bot', subject: 'bot' };
}

/**
 * Which limit a route falls under, from its method and path: one table for the whole API, so that a new
 * route is limited by where it lives (and documented with 429 by the same function), not by whether
 * someone remembered a decorator. Paths may be concrete or OpenAPI templates.
 */
export function routeLimitOf(method: string, spelled: string): RouteLimit | null {
  // The router also serves a path with a trailing slash; it must count where the path without it does.
  const path = spelled.length > 1 ? spelled.replace(/\/+$/, '') : spelled;
  if (!path.startsWith(BASE)) return telegramLimitOf(path);
  const [first, second, third] = path.slice(BASE.length).split('/');
  const write = method.toUpperCase() !== 'GET';
  // Platform services behind the internal service token; their own callers are limited where they enter.
  if (first === 'internal') return null;
  if (first === 'verifyToken') return { endpoint: 'verify_token', subject: 'address' };
  if (first === 'files' && second === 'storage') return { endpoint: 'file_transfer', subject: 'address' };
  if (first === 'client') {
    if (write && second === 'callback-queries' && third === undefined) {
      return { endpoint: 'client.callback_query', subject: 'account' };
    }
    if (write && second === 'inline-queries' && third === undefined) {
      return { endpoint: 'client.inline_query', subject: 'account' };
    }
    return { endpoint: write ? 'client.write' : 'client.read', subject: 'account' };
  }
  if (first === 'admin') return { endpoint: 'staff', subject: 'account' };
  if (first === 'my') {
    return third === 'webhook' && write && second !== undefined
      ? { endpoint: 'set_webhook', subject: 'account' }
      : { endpoint: 'developer', subject: 'account' };
  }
  if (first === 'setWebhook') return { endpoint: 'set_webhook', subject: 'bot' };
  return { endpoint: 'bot', subject: 'bot' };
}
