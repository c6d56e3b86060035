import { CallHandler, HttpCode, SetMetadata } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { AsyncResource } from 'node:async_hooks';
import { defer, lastValueFrom } from 'rxjs';
import { HandlerExecution, handledUnder, MarksHandlerStart } from './handler-execution';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import {
  carriesIdempotencyKey,
  Idempotent,
  IDEMPOTENCY_KEY_DESCRIPTION,
  IdempotencyKey,
  REPLAY_HEADER,
} from './idempotency.interceptor';
import type { Request } from 'express';

class Handlers {
  readonly own = 'instance';

  @MarksHandlerStart()
  @SetMetadata('written-below', 'kept')
  echo(...args: unknown[]): unknown {
    return { self: this.own, args };
  }
}

describe('MarksHandlerStart', () => {
  const handlers = new Handlers();
  const nestLike = (pipes: () => void): CallHandler => ({
    handle: () =>
      defer(
        AsyncResource.bind(async () => {
          pipes();
          return handlers.echo('a', 2);
        }),
      ),
  });

  it('marks the execution started when the handler is called, with its instance and arguments intact', async () => {
    const execution: HandlerExecution = { started: false };
    const result = await lastValueFrom(handledUnder(execution, nestLike(() => undefined)));
    expect(result).toEqual({ self: 'instance', args: ['a', 2] });
    expect(execution.started).toBe(true);
  });

  it('leaves the execution unstarted when a pipe refuses the request first', async () => {
    const execution: HandlerExecution = { started: false };
    await expect(
      lastValueFrom(
        handledUnder(
          execution,
          nestLike(() => {
            throw new Error('invalid');
          }),
        ),
      ),
    ).rejects.toThrow('invalid');
    expect(execution.started).toBe(false);
  });

  it('runs the handler outside any execution too', () => {
    expect(handlers.echo()).toEqual({ self: 'instance', args: [] });
  });

  it('keeps the name and the metadata the decorators written below it left on the handler', () => {
    expect(Handlers.prototype.echo.name).toBe('echo');
    expect(Reflect.getMetadata('written-below', Handlers.prototype.echo)).toBe('kept');
  });
});

describe('Idempotent', () => {
  class Routes {
    @HttpCode(200)
    @Idempotent()
    plain() {}

    @Idempotent({ required: false, keyHint: 'A new key each time' })
    hinted() {}

    @Idempotent({ required: true, keyFrom: () => 'k' })
    fromBody() {}
  }
  const headers = (handler: () => void) => Reflect.getMetadata('swagger/apiParameters', handler);

  it('documents a required Idempotency-Key header with the pattern it enforces', () => {
    expect(headers(Routes.prototype.plain)).toEqual([
      expect.objectContaining({
        name: 'Idempotency-Key',
        in: 'header',
        required: true,
        description: IDEMPOTENCY_KEY_DESCRIPTION,
        schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]{1,255}$' },
      }),
    ]);
    expect(Reflect.getMetadata(HTTP_CODE_METADATA, Routes.prototype.plain)).toBe(200);
  });

  it('documents an optional key with the route hint first', () => {
    expect(headers(Routes.prototype.hinted)).toEqual([
      expect.objectContaining({ required: false, description: `A new key each time. ${IDEMPOTENCY_KEY_DESCRIPTION}` }),
    ]);
  });

  it('documents no header for a key read from the body', () => {
    expect(headers(Routes.prototype.fromBody)).toBeUndefined();
  });

  it('says what the key is, how long it lives and what a reuse answers', () => {
    expect(IDEMPOTENCY_KEY_DESCRIPTION).toContain('1–255 printable ASCII characters (space to `~`). Keys are ');
    expect(IDEMPOTENCY_KEY_DESCRIPTION).toContain('scoped to the caller and kept 24 hours (IDEMPOTENCY_TTL_MS). A retry');
    expect(IDEMPOTENCY_KEY_DESCRIPTION).toContain('`Idempotent-Replayed: true`; the same key with another body or on');
    expect(IDEMPOTENCY_KEY_DESCRIPTION).toContain("gets 409 `IDEMPOTENCY_KEY_REUSED`, and while the first request");
  });
});

describe('IdempotencyKey', () => {
  it("hands the handler the request's IdempotentCall, or undefined without one", () => {
    class Routes {
      handle(@IdempotencyKey() _call: unknown) {}
    }
    const args = Reflect.getMetadata(ROUTE_ARGS_METADATA, Routes, 'handle') as Record<string, { factory: Function }>;
    const factory = Object.values(args)[0].factory;
    const call = { key: 'k' };
    const req = { idempotentCall: call };
    const context = new ExecutionContextHost([req, {}, () => undefined]);
    expect(factory(undefined, context)).toBe(call);
    expect(factory(undefined, new ExecutionContextHost([{}, {}, () => undefined]))).toBeUndefined();
  });

  it('marks a replay with the Idempotent-Replayed header', () => {
    expect(REPLAY_HEADER).toBe('Idempotent-Replayed');
  });
});

describe('carriesIdempotencyKey', () => {
  const req = (key?: string) => ({ headers: key === undefined ? {} : { 'idempotency-key': key } }) as unknown as Request;

  it('tells whether a request sends a key, an empty one counting as none', () => {
    expect(carriesIdempotencyKey(req('k'))).toBe(true);
    expect(carriesIdempotencyKey(req(''))).toBe(false);
    expect(carriesIdempotencyKey(req())).toBe(false);
  });
});
