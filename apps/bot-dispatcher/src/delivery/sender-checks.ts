import { allowListOf, isAllowedBy, isRefusedAddress } from '@app/bot-delivery';

/** Which addresses a webhook may reach: public ones unless allowPrivate, and within allowed_ips when set. */
export interface AddressRules {
  allowPrivate: boolean;
  /** Null: no list of the bot's own. */
  allowedIps: readonly string[] | null;
}

/** Raised from the connection's DNS step: the connection is never opened. */
export class AddressRefusedError extends Error {
  readonly code = 'EADDRREFUSEDBYPOLICY';
}

/** The addresses, in their order, that the rules let the sender connect to. */
export function acceptableAddresses(addresses: readonly string[], rules: AddressRules): string[] {
  const allowList = rules.allowedIps ? allowListOf(rules.allowedIps) : null;
  return addresses.filter(
    (address) => (rules.allowPrivate || !isRefusedAddress(address)) && (!allowList || isAllowedBy(allowList, address)),
  );
}

/**
 * Why none of the addresses may be used, or null when one may. The message goes to the bot's
 * developer (last_error_message), so it never names a resolved address: that would map internal DNS.
 */
export function addressRefusal(addresses: readonly string[], rules: AddressRules): string | null {
  if (acceptableAddresses(addresses, rules).length > 0) return null;
  return rules.allowedIps
    ? 'no resolved address is in allowed_ips; not connected'
    : 'the host resolves only to private or reserved addresses; not connected';
}

/** What the delivery log says of a failed POST: a timeout, a refusal of the policy, else the error and its cause. */
export function describeSendError(error: unknown, timeoutMs: number): string {
  const err = error as Error & { cause?: Error; code?: string };
  if (err.name === 'TimeoutError' || err.name === 'AbortError') {
    return `no response within ${timeoutMs} ms`;
  }
  const refused =
    err instanceof AddressRefusedError ? err : err.cause instanceof AddressRefusedError ? err.cause : null;
  if (refused) return refused.message;
  const detail = err.cause?.message && err.cause.message !== err.message ? `: ${err.cause.message}` : '';
  return `${err.code ? `${err.code} ` : ''}${err.message}${detail}`.slice(0, 500);
}
