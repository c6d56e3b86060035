import type { Request } from 'express';
import { accountOf, principalOf, setAccount, setPrincipal, tenantOf } from './principal';

const account = { id: 'account-1', name: 'Ada', roles: [], isPlatformAdmin: false };

describe('principal', () => {
  it('scopes a call to the token tenant first, else to the account, else to nobody', () => {
    const both = {} as Request;
    setAccount(both, account);
    setPrincipal(both, { tenantId: 'app-1', permissions: ['vouchers:read'] });
    expect(tenantOf(both)).toBe('app-1');
    expect(principalOf(both)).toEqual({ tenantId: 'app-1', permissions: ['vouchers:read'] });
    expect(accountOf(both)).toBe(account);

    const accountOnly = {} as Request;
    setAccount(accountOnly, account);
    expect(tenantOf(accountOnly)).toBe('account-1');
    expect(principalOf(accountOnly)).toBeUndefined();

    expect(tenantOf({} as Request)).toBeUndefined();
  });
});
