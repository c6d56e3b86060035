import { ErrorCatalog } from '@app/envelope';
import { IDEMPOTENCY_ERROR_CODES } from '@app/idempotency';
import { errorResponsesFor } from '@app/platform';

/** Every business code voucher-api answers, with its HTTP status; throw sites name a code, never a status. */
export const VoucherErrors = ErrorCatalog.define('VALIDATION_FAILED', {
  VALIDATION_FAILED: { status: 400, message: 'Validation failed' },
  APPLICATION_DISABLED: { status: 403, message: 'The application is disabled' },
  FEATURE_DISABLED: { status: 403, message: 'The vouchers feature is closed for this application' },
  ORIGIN_NOT_ALLOWED: { status: 403, message: 'Origin is not allowed for this application' },
  RECIPIENT_NOT_AUTHORIZED: { status: 403, message: 'The recipient has not authorised this application' },
  TEMPLATE_NOT_ACTIVE: { status: 409, message: 'The template is not active' },
  ISSUE_LIMIT_REACHED: { status: 409, message: 'The template has no vouchers left to issue' },
  PER_USER_LIMIT_REACHED: {
    status: 409,
    message: 'The recipient already holds as many vouchers of this template as allowed',
  },
  DUPLICATE_EXTERNAL_ID: { status: 409, message: 'The external id is already used in this application' },
  INSUFFICIENT_STOCK: { status: 409, message: 'Not enough stock left' },
  VOUCHER_ALREADY_REDEEMED: { status: 409, message: 'The voucher is already redeemed' },
  VOUCHER_NOT_REDEEMABLE: { status: 409, message: 'The voucher cannot be redeemed' },
  REDEMPTION_ALREADY_REVERSED: { status: 409, message: 'The redemption is already reversed' },
  SEND_NOT_CLAIMABLE: { status: 409, message: 'The send is no longer claimable' },
  SEND_NOT_CANCELLABLE: { status: 409, message: 'The send can no longer be cancelled' },
  FILE_SERVICE_UNAVAILABLE: {
    status: 503,
    message: 'The platform file service did not answer in time; nothing was changed, retry later',
  },
  SEALED_TRANSPORT_OFF: { status: 404, message: 'Sealed transport is not enabled on this service' },
  SEALED_TRANSPORT_REQUIRED: {
    status: 403,
    message: 'This service takes runtime calls only sealed: POST /api/v1/open-platform/sealed',
  },
  SEALED_REQUEST_MALFORMED: { status: 400, message: 'The sealed call is not a well-formed compact JWE of a call' },
  SEALED_ALGORITHM_NOT_ALLOWED: {
    status: 400,
    message: 'A sealed call must use alg ECDH-ES+A256KW and enc A256GCM',
  },
  SEALED_KEY_UNKNOWN: { status: 400, message: 'The kid of the sealed call names no key of this service' },
  SEALED_REQUEST_UNREADABLE: {
    status: 400,
    message: 'The sealed call does not decrypt with the key its kid names: altered, or sealed to another key',
  },
  SEALED_REQUEST_EXPIRED: { status: 400, message: 'The sealed call is outside the freshness window; seal it again' },
  SEALED_REQUEST_REPLAYED: { status: 409, message: 'This sealed call was already received; seal a retry anew' },
  SEALED_ROUTE_NOT_ALLOWED: { status: 403, message: 'Only runtime routes can be called sealed' },
  SEALED_ANSWER_KEY_UNUSABLE: {
    status: 400,
    message: 'The response_key is no public key an answer can be sealed to; seal the call again with a new key pair',
  },
  SEALED_ANSWER_FAILED: {
    status: 500,
    message:
      'The answer could not be sealed, and the call may have run: send it again as a new seal with the same idempotency-key to read its answer',
  },
  ...IDEMPOTENCY_ERROR_CODES,
});

export type VoucherErrorCode = Parameters<typeof VoucherErrors.error>[0];

/** `@ApiErrors('TEMPLATE_NOT_ACTIVE', …)`: documents a route's error responses from the registry. */
export const ApiErrors = errorResponsesFor(VoucherErrors);

/** One documented error of a route: a code, and when it happens. */
export type VoucherErrorDoc = VoucherErrorCode | { code: VoucherErrorCode; when?: string };

/** What every route with an idempotency key can answer about the key. */
export const IDEMPOTENCY_KEY_ERRORS: VoucherErrorDoc[] = [
  { code: 'IDEMPOTENCY_KEY_REUSED', when: 'the key was used with another request' },
  { code: 'IDEMPOTENCY_KEY_IN_USE', when: 'a request with the key is still running' },
];

/** What a hand-out of stock (allocation, send, claim) answers once the application or template stops issuing. */
export const HAND_OUT_ERRORS: VoucherErrorDoc[] = [
  { code: 'APPLICATION_DISABLED', when: 'the application is disabled' },
  { code: 'FEATURE_DISABLED', when: 'the vouchers feature is closed' },
  { code: 'TEMPLATE_NOT_ACTIVE', when: 'the template is not active' },
];
