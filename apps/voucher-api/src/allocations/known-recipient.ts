import type { SqlTarget } from '@app/platform';
import type { UsersStore } from '../users/users.store';
import { VoucherErrors } from '../voucher-errors';

/** What a refusal of an unknown user tells the caller to do. */
export const HOW_A_USER_BECOMES_KNOWN =
  'a user becomes known with their first call to this service with their own account JWT ' +
  '(any route, e.g. GET /api/v1/open-platform/holder/inbox); retry after that';

/**
 * Stock is handed only to users the service knows (they called it once with their own JWT), so that
 * a typo never strands units with nobody. `field` names the body field in the refusal.
 */
export async function requireKnownRecipient(
  users: UsersStore,
  on: SqlTarget,
  userId: string,
  field: string,
): Promise<void> {
  if (await users.exists(on, userId)) return;
  throw VoucherErrors.invalid(`${field} is not a known user: ${HOW_A_USER_BECOMES_KNOWN}`, [
    { field, problem: `is not a known user: ${HOW_A_USER_BECOMES_KNOWN}` },
  ]);
}
