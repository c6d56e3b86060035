import { API_SECURITY } from '@app/platform';
import { letterCaseProblems } from '@app/testing';
import { VOUCHER_API_DOCS } from '../src/api-docs';
import { SeededApplication, seedApplication, startVoucherApp, VoucherTestContext } from './app-context';

describe('voucher-api: letter case is no second spelling of a route', () => {
  let ctx: VoucherTestContext;
  let application: SeededApplication;
  let staff: string;

  beforeAll(async () => {
    ctx = await startVoucherApp();
    application = await seedApplication(ctx, { permissions: ['vouchers:read', 'vouchers:issue'] });
    staff = await ctx.jwt('staff-1', 'Staff', ['platform_admin']);
  });
  afterAll(() => ctx.close());

  it('answers every route of the OpenAPI document in upper and mixed case 404, or limits and logs it as in lower case (defect 2)', async () => {
    const problems = await letterCaseProblems(ctx.app, {
      spec: VOUCHER_API_DOCS,
      param: (name) => (name === 'applicationId' ? application.applicationId : '00000000-0000-4000-8000-000000000000'),
      credentials: (scheme): Record<string, string> => {
        if (scheme === API_SECURITY.appToken) return { Authorization: `Bearer ${application.token}` };
        if (scheme === API_SECURITY.accountJwt) return { Authorization: `Bearer ${staff}` };
        return {};
      },
      secrets: [application.token],
      // voucher-api keeps no audit log of its own; its records are the business rows themselves.
      audited: async () => 0,
    });
    expect(problems).toEqual([]);
  });
});
