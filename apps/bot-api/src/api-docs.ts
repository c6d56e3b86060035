import { AccountGuard, InternalServiceGuard } from '@app/auth';
import { API_SECURITY, ApiDocsSpec } from '@app/platform';
import { BotErrors } from './bot-errors';
import { BotTokenGuard } from './bots/auth/bot-token.guard';
import { routeLimitOf } from './rate-limits/route-rate-limits';

/** The tag of service-to-service routes. */
export const INTERNAL_TAG = 'internal';

/** What the OpenAPI document of bot-api says about itself (served at /docs, written by `npm run openapi`). */
export const BOT_API_DOCS: ApiDocsSpec = {
  title: 'Bot messaging service',
  description:
    'Bot platform API: developer and staff routes with an account JWT, bot methods with a bot token (`sbot_…`) in ' +
    'the style of the Telegram Bot API, and client routes through which end users chat. Successes are ' +
    '`{ success: true, data }`, failures `{ success: false, code, message }`. Updates reach the bot by webhook ' +
    '(at-least-once, retried, then dead-lettered) or by getUpdates long polling. Every API route is rate limited ' +
    'per minute (per account or per bot; verifyToken and the signed file routes per bot or per URL when the token or ' +
    'signature checks out, else per client address) and answers `X-RateLimit-Limit`, ' +
    '`X-RateLimit-Remaining` and `X-RateLimit-Reset`; past the limit, 429 `RATE_LIMITED` with `Retry-After`.',
  version: '1.0.0',
  envelope: 'bot',
  errors: BotErrors,
  security: [API_SECURITY.accountJwt, API_SECURITY.botToken, API_SECURITY.serviceToken],
  routeErrors: (method, path) => (routeLimitOf(method, path) ? ['RATE_LIMITED'] : []),
  credentialGuards: [
    { guard: AccountGuard, scheme: API_SECURITY.accountJwt },
    { guard: BotTokenGuard, scheme: API_SECURITY.botToken },
    { guard: InternalServiceGuard, scheme: API_SECURITY.serviceToken },
  ],
  tags: [
    {
      name: INTERNAL_TAG,
      description:
        'Routes for other platform services (voucher-api), with the internal service token. Not for integrators: ' +
        'the ingress must not route `/api/v1/bots/internal/` (docs/deployment.md).',
    },
  ],
};
