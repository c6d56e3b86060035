import { ApiError } from '@app/envelope';
import { assertApplicationIssues, vouchersFeatureOpen } from './application-rules';

describe('vouchersFeatureOpen', () => {
  it('is closed only by an explicit false', () => {
    expect(vouchersFeatureOpen({ vouchers: false })).toBe(false);
    expect(vouchersFeatureOpen({ vouchers: true })).toBe(true);
  });

  it('keeps an application whose features predate the flag open', () => {
    expect(vouchersFeatureOpen({})).toBe(true);
    expect(vouchersFeatureOpen(null)).toBe(true);
  });
});

describe('assertApplicationIssues', () => {
  const refusal = (application: Parameters<typeof assertApplicationIssues>[0]): unknown => {
    try {
      assertApplicationIssues(application);
      return undefined;
    } catch (error) {
      return error;
    }
  };

  it('lets an active application with the feature open (or unset) issue', () => {
    expect(refusal({ status: 'active', features: { vouchers: true } })).toBeUndefined();
    expect(refusal({ status: 'active', features: {} })).toBeUndefined();
  });

  it('refuses a disabled application with 403 APPLICATION_DISABLED, before looking at its features', () => {
    expect(refusal({ status: 'disabled', features: { vouchers: false } })).toMatchObject({
      status: 403,
      code: 'APPLICATION_DISABLED',
    });
  });

  it('refuses a closed vouchers feature with 403 FEATURE_DISABLED', () => {
    const error = refusal({ status: 'active', features: { vouchers: false } });
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 403, code: 'FEATURE_DISABLED' });
  });
});
