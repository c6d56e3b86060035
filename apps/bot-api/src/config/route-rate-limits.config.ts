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
