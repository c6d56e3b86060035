import 'reflect-metadata';
import type { ExecutionContext } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import { ApiError } from '@app/envelope';
import type { Request } from 'express';
import { Account, AccountJwtVerifier, InvalidAccountToken, signAccountJwt } from './account-jwt';
import {
  AccountDirectory,
  AccountGuard,
  CurrentAccount,
  isCrossSite,
  PermissionsGuard,
  PlatformAdminGuard,
  RequirePermissions,
} from './guards';
import { accountOf, setAccount, setPrincipal } from './principal';

const SECRET = 'a-test-secret-of-at-least-32-bytes!!';
const STAFF: Account = { id: 'staff', name: 'Staff', roles: ['platform_admin'], isPlatformAdmin: true };
const MEMBER: Account = { id: 'member', name: 'Member', roles: [], isPlatformAdmin: false };

function requestOf(headers: Record<string, string> = {}, method = 'GET', host = 'console.example'): Request {
  return { headers, method, host } as unknown as Request;
}

function contextOf(
  req: Request,
  handler: () => void = () => undefined,
  controller: object = class {},
): ExecutionContext {
  return {
    switchToHttp: () => ({ getRequest: () => req }),
    getHandler: () => handler,
    getClass: () => controller,
  } as unknown as ExecutionContext;
}

/** The refusal a guard throws: its status and message. */
async function refusal(run: () => unknown): Promise<{ status: number; message: string }> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return { status: (error as ApiError).status, message: (error as ApiError).message };
  }
  throw new Error('the guard let the request through');
}

describe('AccountGuard', () => {
  const verifier = new AccountJwtVerifier({ secret: SECRET });

  it('lets a valid account JWT through, records the caller in the directory and on the request', async () => {
    const upserted: Account[] = [];
    const directory: AccountDirectory = { upsert: async (account) => void upserted.push(account) };
    const req = requestOf({ authorization: `Bearer ${await signAccountJwt(SECRET, { sub: 'u-1', name: 'Ada' })}` });
    expect(await new AccountGuard(verifier, directory).canActivate(contextOf(req))).toBe(true);
    const account = { id: 'u-1', name: 'Ada', roles: [], isPlatformAdmin: false };
    expect(upserted).toEqual([account]);
    expect(accountOf(req)).toEqual(account);
  });

  it('works without a directory', async () => {
    const req = requestOf({ authorization: `Bearer ${await signAccountJwt(SECRET, { sub: 'u-2' })}` });
    expect(await new AccountGuard(verifier).canActivate(contextOf(req))).toBe(true);
    expect(accountOf(req)?.id).toBe('u-2');
  });

  it('refuses a request without a bearer token with 401', async () => {
    for (const headers of [{}, { authorization: 'Basic dXNlcjpwYXNz' }] as Array<Record<string, string>>) {
      expect(await refusal(() => new AccountGuard(verifier).canActivate(contextOf(requestOf(headers))))).toEqual({
        status: 401,
        message: 'Authorization: Bearer <account JWT> is required',
      });
    }
  });

  it('refuses an application or bot token with 401 naming its kind, before verifying anything', async () => {
    const verify = jest.fn();
    const guard = new AccountGuard({ verify } as unknown as AccountJwtVerifier);
    expect(await refusal(() => guard.canActivate(contextOf(requestOf({ authorization: 'Bearer sop_abc' }))))).toEqual({
      status: 401,
      message: 'This route takes an account JWT, not an application token (sop_…)',
    });
    expect(verify).not.toHaveBeenCalled();
  });

  it('refuses a JWT the verifier rejects with 401 and the reason, recording nobody', async () => {
    const upsert = jest.fn();
    const forged = await signAccountJwt('another-secret-of-at-least-32-bytes!', { sub: 'u-3' });
    const req = requestOf({ authorization: `Bearer ${forged}` });
    expect(await refusal(() => new AccountGuard(verifier, { upsert }).canActivate(contextOf(req)))).toEqual({
      status: 401,
      message: 'Account token rejected: invalid token',
    });
    expect(upsert).not.toHaveBeenCalled();
    expect(accountOf(req)).toBeUndefined();
  });

  it('lets an error other than a rejected token propagate as it is (a 5xx, not a 401)', async () => {
    const broken = {
      verify: async () => Promise.reject(new Error('JWKS unreachable')),
    } as unknown as AccountJwtVerifier;
    const req = requestOf({ authorization: 'Bearer a.b.c' });
    await expect(new AccountGuard(broken).canActivate(contextOf(req))).rejects.toThrow(/^JWKS unreachable$/);
    const rejecting = { verify: async () => Promise.reject(new InvalidAccountToken('token expired')) };
    await expect(
      new AccountGuard(rejecting as unknown as AccountJwtVerifier).canActivate(contextOf(req)),
    ).rejects.toBeInstanceOf(ApiError);
  });
});

describe('isCrossSite', () => {
  it('believes Fetch Metadata when the browser sends it', () => {
    expect(isCrossSite(requestOf({ 'sec-fetch-site': 'cross-site' }))).toBe(true);
    expect(isCrossSite(requestOf({ 'sec-fetch-site': 'same-site' }))).toBe(true);
    // The header wins over an Origin that says otherwise.
    expect(isCrossSite(requestOf({ 'sec-fetch-site': 'same-origin', origin: 'https://evil.example' }))).toBe(false);
    expect(isCrossSite(requestOf({ 'sec-fetch-site': 'none', origin: 'https://evil.example' }))).toBe(false);
  });

  it('without Fetch Metadata, compares the Origin host with the request host', () => {
    expect(isCrossSite(requestOf({}))).toBe(false);
    expect(isCrossSite(requestOf({ origin: 'https://console.example' }))).toBe(false);
    expect(isCrossSite(requestOf({ origin: 'https://evil.example' }))).toBe(true);
    expect(isCrossSite(requestOf({ origin: 'https://console.example:8443' }))).toBe(true);
  });

  it('takes an unreadable Origin (the opaque "null" included) and an unknown Fetch Metadata value as cross-site when the Origin says so', () => {
    expect(isCrossSite(requestOf({ origin: 'null' }))).toBe(true);
    expect(isCrossSite(requestOf({ 'sec-fetch-site': 'bogus', origin: 'https://evil.example' }))).toBe(true);
    expect(isCrossSite(requestOf({ 'sec-fetch-site': 'bogus' }))).toBe(false);
  });
});

describe('PlatformAdminGuard', () => {
  const guard = new PlatformAdminGuard();
  const withAccount = (account: Account | undefined, headers: Record<string, string> = {}, method = 'GET') => {
    const req = requestOf(headers, method);
    if (account) setAccount(req, account);
    return contextOf(req);
  };

  it('lets platform staff through, reads from another site included', () => {
    expect(guard.canActivate(withAccount(STAFF))).toBe(true);
    for (const method of ['GET', 'HEAD', 'OPTIONS']) {
      expect(guard.canActivate(withAccount(STAFF, { 'sec-fetch-site': 'cross-site' }, method))).toBe(true);
    }
    expect(guard.canActivate(withAccount(STAFF, { 'sec-fetch-site': 'same-origin' }, 'POST'))).toBe(true);
  });

  it('refuses anyone else, and nobody, with 403', async () => {
    for (const account of [MEMBER, undefined]) {
      expect(await refusal(() => guard.canActivate(withAccount(account)))).toEqual({
        status: 403,
        message: 'Platform staff only',
      });
    }
  });

  it('refuses a state-changing staff call from another site with 403', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      expect(
        await refusal(() => guard.canActivate(withAccount(STAFF, { origin: 'https://evil.example' }, method))),
      ).toEqual({
        status: 403,
        message: 'Staff actions are refused from another site (Origin or Sec-Fetch-Site)',
      });
    }
  });
});

describe('PermissionsGuard', () => {
  const guard = new PermissionsGuard(new Reflector());

  class Plain {
    open(): void {}
  }
  class Guarded {
    @RequirePermissions('vouchers:read', 'vouchers:write')
    write(): void {}
    @RequirePermissions()
    none(): void {}
  }
  @RequirePermissions('bots:manage')
  class GuardedClass {
    read(): void {}
  }

  const withPrincipal = (permissions: string[] | undefined, handler: () => void, controller: object) => {
    const req = requestOf();
    if (permissions) setPrincipal(req, { tenantId: 't-1', permissions });
    return contextOf(req, handler, controller);
  };

  it('lets any caller through a route that requires no permission', () => {
    expect(guard.canActivate(withPrincipal(undefined, Plain.prototype.open, Plain))).toBe(true);
    expect(guard.canActivate(withPrincipal(undefined, Guarded.prototype.none, Guarded))).toBe(true);
  });

  it('lets a token through that holds every permission of the handler or of its controller', () => {
    const both = ['vouchers:read', 'vouchers:write'];
    expect(guard.canActivate(withPrincipal(both, Guarded.prototype.write, Guarded))).toBe(true);
    expect(guard.canActivate(withPrincipal(['bots:manage'], GuardedClass.prototype.read, GuardedClass))).toBe(true);
  });

  it('refuses a caller without a principal with 401', async () => {
    expect(await refusal(() => guard.canActivate(withPrincipal(undefined, Guarded.prototype.write, Guarded)))).toEqual({
      status: 401,
      message: 'Not authenticated',
    });
  });

  it('refuses a token missing any required permission with 403 naming each one missing', async () => {
    expect(
      await refusal(() => guard.canActivate(withPrincipal(['vouchers:read'], Guarded.prototype.write, Guarded))),
    ).toEqual({ status: 403, message: 'Token lacks permission: vouchers:write' });
    expect(await refusal(() => guard.canActivate(withPrincipal([], Guarded.prototype.write, Guarded)))).toEqual({
      status: 403,
      message: 'Token lacks permission: vouchers:read, vouchers:write',
    });
    expect(
      await refusal(() => guard.canActivate(withPrincipal([], GuardedClass.prototype.read, GuardedClass))),
    ).toEqual({ status: 403, message: 'Token lacks permission: bots:manage' });
  });
});

describe('CurrentAccount', () => {
  class Controller {
    handle(@CurrentAccount() _account: Account): void {}
  }
  const metadata = Reflect.getMetadata(ROUTE_ARGS_METADATA, Controller, 'handle');
  const factory = (Object.values(metadata)[0] as { factory: (data: unknown, context: ExecutionContext) => Account })
    .factory;

  it('gives the account AccountGuard set', () => {
    const req = requestOf();
    setAccount(req, MEMBER);
    expect(factory(undefined, contextOf(req))).toBe(MEMBER);
  });

  it('refuses with 401 when no account was set', async () => {
    expect(await refusal(() => factory(undefined, contextOf(requestOf())))).toEqual({
      status: 401,
      message: 'Not authenticated',
    });
  });
});
