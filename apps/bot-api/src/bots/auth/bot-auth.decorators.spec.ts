import { ExecutionContext } from '@nestjs/common';
import { GUARDS_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import { PermissionsGuard, setPrincipal } from '@app/auth';
import { ApiError } from '@app/envelope';
import type { Request } from 'express';
import { BotAuth, RequireScopes } from './bot-auth.decorators';
import { BotTokenGuard } from './bot-token.guard';

class SendingController {
  @RequireScopes('messages:send')
  send(): void {}

  open(): void {}
}

function contextFor(handler: () => void, scopes: string[]): ExecutionContext {
  const req = {} as Request;
  setPrincipal(req, { tenantId: '0123456789abcdef01234567', permissions: scopes });
  return {
    getHandler: () => handler,
    getClass: () => SendingController,
    switchToHttp: () => ({ getRequest: () => req }),
  } as unknown as ExecutionContext;
}

describe('RequireScopes', () => {
  const guard = new PermissionsGuard(new Reflector());
  const { send, open } = SendingController.prototype;

  it('lets a bot holding the scope through', () => {
    expect(guard.canActivate(contextFor(send, ['messages:send', 'messages:receive']))).toBe(true);
  });

  it('refuses a bot without the scope with 403 FORBIDDEN', () => {
    let error: unknown;
    try {
      guard.canActivate(contextFor(send, ['messages:receive']));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 403, code: 'FORBIDDEN' });
  });

  it('leaves handlers without the decorator open to every authenticated bot', () => {
    expect(guard.canActivate(contextFor(open, []))).toBe(true);
  });

  it('attaches the permissions guard to the handler, and BotAuth the bot-token guard', () => {
    expect(Reflect.getMetadata(GUARDS_METADATA, send)).toEqual([PermissionsGuard]);
    @BotAuth()
    class Authenticated {}
    expect(Reflect.getMetadata(GUARDS_METADATA, Authenticated)).toEqual([BotTokenGuard]);
  });
});
