import { VoucherErrors } from '../voucher-errors';
import type { ApplicationFeatures, ApplicationStatus } from './entities/application.entity';

/**
 * Whether the vouchers feature is open. Only an explicit `false` closes it: staff close it with
 * `{ vouchers: false }`, new applications are created with `{ vouchers: true }`, and an application
 * whose features were written before the flag existed (no `vouchers` key) keeps working as it did.
 */
export function vouchersFeatureOpen(features: Partial<ApplicationFeatures> | null | undefined): boolean {
  return features?.vouchers !== false;
}

/**
 * An application hands out vouchers only while it is active and its vouchers feature is open: the
 * runtime routes, allocations, sends and claims all stop at once when either changes.
 */
export function assertApplicationIssues(application: {
  status: ApplicationStatus;
  features: Partial<ApplicationFeatures> | null;
}): void {
  if (application.status !== 'active') throw VoucherErrors.error('APPLICATION_DISABLED');
  if (!vouchersFeatureOpen(application.features)) throw VoucherErrors.error('FEATURE_DISABLED');
}
