import type { RouteRateLimit } from '../config/route-rate-limits.config';

export interface RouteLimit {
  endpoint: RouteRateLimit;
  /**
   * Whose counter the call goes to. `credential`: the credential the route's guard checked (the bot of
   * a valid token, the grant of a signed URL), else the client address (credential-subject.ts).
   */
  subject: 'credential' | 'bot' | 'account';
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
  if (first === 'verifyToken') return { endpoint: 'verify_token', subject: 'credential' };
  if (first === 'files' && second === 'storage') return { endpoint: 'file_transfer', subject: 'credential' };
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
