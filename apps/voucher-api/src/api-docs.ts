import { AccountGuard } from '@app/auth';
import { API_SECURITY, ApiDocsSpec } from '@app/platform';
import { VoucherErrors } from './voucher-errors';
import { AppTokenGuard } from './app-auth/app-token.guard';

/** What the OpenAPI document of voucher-api says about itself (served at /docs, written by `npm run openapi`). */
export const VOUCHER_API_DOCS: ApiDocsSpec = {
  title: 'Voucher service',
  description:
    'Open-platform voucher API: runtime operations with an application token (`sop_…`), console operations and ' +
    'holder operations with an account JWT, and template review by platform staff. Every response uses the envelope ' +
    '`{ success, code, message, data | error, meta }`; failures carry a business code in `error.code`. Operations ' +
    'that create or redeem take an `Idempotency-Key` header (1–255 printable ASCII characters, kept 24 hours); ' +
    'runtime responses carry `X-RateLimit-*` headers.',
  version: '1.0.0',
  envelope: 'voucher',
  errors: VoucherErrors,
  security: [API_SECURITY.accountJwt, API_SECURITY.appToken],
  credentialGuards: [
    { guard: AccountGuard, scheme: API_SECURITY.accountJwt },
    { guard: AppTokenGuard, scheme: API_SECURITY.appToken },
  ],
};
