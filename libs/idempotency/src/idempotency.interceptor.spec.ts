/*
 * The interceptor, IdempotentCall and the Idempotent decorator in one file on one database: a mutant
 * of any of them then loads Nest, TypeORM and the test helpers once, not once per file.
 */
import { HttpCode } from '@nestjs/common';
import { HTTP_CODE_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { ApiError, RenderedBody, RenderedErrorResponse } from '@app/envelope';
import type { Request } from 'express';
import { fakeRequest, Harness, startHarness, through } from '../test/interceptor-harness';
import { requestFingerprint } from './idempotency-decisions';
import {
  carriesIdempotencyKey,
  Idempotent,
  IDEMPOTENCY_KEY_DESCRIPTION,
  IdempotencyKey,
  idempotentCallOf,
  REPLAY_HEADER,
} from './idempotency.interceptor';
import { executeFirst, queryBuilder } from '@app/platform';
import { claimedKey, withClaim } from './idempotency.store';
import type { DB as IdempotencyDB } from './schema.generated';
import { IdempotentCall, IdempotentReplay } from './idempotent-call';
import type { IdempotencyTarget } from './idempotency-target';

/** The column holds a SHA-256 in hex: a shorter value would come back padded. */
const FINGERPRINT = 'f'.repeat(64);

type Body = {
  item: string;
  outcome?: 'ok' | 'incomplete' | 'plain' | 'conflict' | 'refused' | 'busy' | 'boom';
  key?: string;
};

/** What a use case does after its claim, chosen by the body: answer, fail in some way, or forget to complete. */
async function act(harness: Harness, req: Request, call: IdempotentCall, begin: boolean): Promise<unknown> {
  const body = req.body as Body;
  return harness.dataSource.transaction(async (manager) => {
    if (begin) await call.begin(manager);
    if (body.outcome === 'conflict') throw new ApiError(409, 'SOLD_OUT', 'Sold out', undefined, { 'X-Why': 'stock' });
    if (body.outcome === 'refused') throw ApiError.badRequest('quantity above what the order allows');
    if (body.outcome === 'busy') throw new ApiError(429, 'BUSY', 'Busy');
    if (body.outcome === 'boom') throw new Error('boom');
    if (body.outcome === 'incomplete') return new RenderedBody('{}');
    const answer = await call.complete(manager, { item: body.item });
    return body.outcome === 'plain' ? { item: body.item } : answer;
  });
}

describe('IdempotencyInterceptor', () => {
  let harness: Harness;
  let runs = 0;

  class Orders {
    @Idempotent()
    create(req: Request) {
      runs += 1;
      return act(harness, req, idempotentCallOf(req)!, false);
    }

    @HttpCode(200)
    @Idempotent({ required: true })
    accept(req: Request) {
      runs += 1;
      return act(harness, req, idempotentCallOf(req)!, false);
    }

    @Idempotent({ required: false })
    optional(req: Request) {
      runs += 1;
      const call = idempotentCallOf(req);
      return call ? act(harness, req, call, false) : { unkeyed: true };
    }

    @Idempotent({ required: true, keyFrom: (req) => (req.body as Body).key, keyName: 'key' })
    byBody(req: Request) {
      runs += 1;
      return act(harness, req, idempotentCallOf(req)!, false);
    }

    @Idempotent({ required: true, claim: 'in-transaction' })
    inTransaction(req: Request) {
      runs += 1;
      return act(harness, req, idempotentCallOf(req)!, true);
    }
  }
  const orders = new Orders();
  /** A handler that reached the interceptor without its options: treated as a required-key route. */
  const unmarked = (req: Request) => act(harness, req, idempotentCallOf(req)!, false);

  const send = (handler: (req: Request) => unknown, req: Request, pipes?: () => void) =>
    through(harness.interceptor, orders, handler, req, pipes);
  const stored = async (key: string) =>
    harness.dataSource.query(`SELECT route, status, response_status FROM idempotency_keys WHERE key = $1`, [key]);

  beforeAll(async () => {
    harness = await startHarness('idemunit');
  });
  afterAll(() => harness.close());
  beforeEach(() => {
    runs = 0;
  });

  describe('the key', () => {
    it('refuses a required key that is missing with 400, before anything runs', async () => {
      const { error } = await send(orders.create, fakeRequest());
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(400);
      expect((error as ApiError).message).toBe('Idempotency-Key is required');
      expect(runs).toBe(0);
    });

    it('treats a route without options as requiring a key', async () => {
      const { error } = await send(unmarked, fakeRequest());
      expect((error as ApiError).message).toBe('Idempotency-Key is required');
      expect((await send(unmarked, fakeRequest({ key: 'unmarked-1' }))).value).toBeInstanceOf(RenderedBody);
    });

    it('refuses a malformed key with 400', async () => {
      const { error } = await send(orders.create, fakeRequest({ key: 'k'.repeat(256) }));
      expect((error as ApiError).status).toBe(400);
      expect(runs).toBe(0);
    });

    it('runs an optional-key route without a key untouched: no call, no record', async () => {
      const { value } = await send(orders.optional, fakeRequest({ body: { item: 'unkeyed' } }));
      expect(value).toEqual({ unkeyed: true });
      expect(runs).toBe(1);
    });

    it('runs an optional-key route under a key it was given', async () => {
      const req = fakeRequest({ key: 'optional-1', body: { item: 'keyed' } });
      const { value } = await send(orders.optional, req);
      expect(value).toBeInstanceOf(RenderedBody);
      expect(await stored('optional-1')).toEqual([
        { route: 'POST /orders', status: 'completed', response_status: 201 },
      ]);
    });

    it('reads the key where the route says, and names it so in a refusal', async () => {
      const missing = await send(orders.byBody, fakeRequest({ body: { item: 'b' } }));
      expect((missing.error as ApiError).message).toBe('key is required');
      const { value } = await send(orders.byBody, fakeRequest({ body: { item: 'b', key: 'body-1' } }));
      expect(value).toBeInstanceOf(RenderedBody);
      expect(await stored('body-1')).toHaveLength(1);
    });

    it('refuses to run an idempotent route without an authenticated tenant', async () => {
      const { error } = await send(orders.create, fakeRequest({ key: 'no-tenant', tenant: null }));
      expect((error as Error).message).toBe('idempotent route without an authenticated tenant');
      expect(runs).toBe(0);
    });

    it('files the key under the route pattern, or the path when the route has none', async () => {
      await send(orders.create, fakeRequest({ key: 'pattern-1', path: '/orders/7', routePath: '/orders/:id' }));
      expect((await stored('pattern-1'))[0].route).toBe('POST /orders/:id');
      await send(orders.create, fakeRequest({ key: 'pattern-2', path: '/orders/7', routePath: null }));
      expect((await stored('pattern-2'))[0].route).toBe('POST /orders/7');
    });
  });

  describe('claimed before the handler runs', () => {
    it('runs once and replays the byte-identical answer with Idempotent-Replayed and the route status', async () => {
      const first = await send(orders.create, fakeRequest({ key: 'replay-1', body: { item: 'r' } }));
      expect(first.res.headers[REPLAY_HEADER]).toBeUndefined();
      expect(JSON.parse((first.value as RenderedBody).body)).toMatchObject({ code: 201, data: { item: 'r' } });
      const again = await send(orders.create, fakeRequest({ key: 'replay-1', body: { item: 'r' } }));
      expect((again.value as RenderedBody).body).toBe((first.value as RenderedBody).body);
      expect(again.res.headers[REPLAY_HEADER]).toBe('true');
      expect(again.res.statusCode).toBe(201);
      expect(runs).toBe(1);
    });

    it('stores and replays the status the route declares', async () => {
      await send(orders.accept, fakeRequest({ key: 'accept-1' }));
      expect((await stored('accept-1'))[0].response_status).toBe(200);
      const again = await send(orders.accept, fakeRequest({ key: 'accept-1' }));
      expect(again.res.statusCode).toBe(200);
    });

    it('answers another body under the key with 409 IDEMPOTENCY_KEY_REUSED', async () => {
      await send(orders.create, fakeRequest({ key: 'reused-1', body: { item: 'one' } }));
      const other = await send(orders.create, fakeRequest({ key: 'reused-1', body: { item: 'two' } }));
      expect((other.error as ApiError).code).toBe('IDEMPOTENCY_KEY_REUSED');
      expect(runs).toBe(1);
    });

    it('stores a deterministic 4xx with its headers and replays it as a rendered error', async () => {
      const first = await send(
        orders.create,
        fakeRequest({ key: 'conflict-1', body: { item: 'c', outcome: 'conflict' } }),
      );
      const rendered = first.error as RenderedErrorResponse;
      expect(rendered).toBeInstanceOf(RenderedErrorResponse);
      expect(rendered.status).toBe(409);
      expect(rendered.headers).toEqual({ 'X-Why': 'stock' });
      expect(JSON.parse(rendered.body).error.code).toBe('SOLD_OUT');
      expect(await stored('conflict-1')).toEqual([
        { route: 'POST /orders', status: 'completed', response_status: 409 },
      ]);

      const again = await send(
        orders.create,
        fakeRequest({ key: 'conflict-1', body: { item: 'c', outcome: 'conflict' } }),
      );
      const replayed = again.error as RenderedErrorResponse;
      expect([replayed.status, replayed.body]).toEqual([409, rendered.body]);
      expect(replayed.headers).toEqual({ [REPLAY_HEADER]: 'true' });
      expect(again.res.headers[REPLAY_HEADER]).toBe('true');
      expect(runs).toBe(1);
    });

    it('stores a 400 of a handler that ran and replays it as an error', async () => {
      const req = () => fakeRequest({ key: 'refused-1', body: { item: 'r', outcome: 'refused' } });
      const first = await send(orders.create, req());
      expect((first.error as RenderedErrorResponse).status).toBe(400);
      const again = await send(orders.create, req());
      expect(again.error).toBeInstanceOf(RenderedErrorResponse);
      expect((again.error as RenderedErrorResponse).status).toBe(400);
      expect(again.res.statusCode).toBe(0);
      expect(runs).toBe(1);
    });

    it.each([
      ['a 429', 'busy', 429],
      ['a 5xx', 'boom', 500],
    ] as const)(
      'releases the key on %s and passes the error on, so a retry runs again',
      async (_what, outcome, status) => {
        const req = () => fakeRequest({ key: `release-${outcome}`, body: { item: 'x', outcome } });
        const first = await send(orders.create, req());
        expect(first.error).not.toBeInstanceOf(RenderedErrorResponse);
        if (status === 429) expect((first.error as ApiError).status).toBe(429);
        expect(await stored(`release-${outcome}`)).toEqual([]);
        await send(orders.create, req());
        expect(runs).toBe(2);
      },
    );

    it('saves nothing for a request refused before its handler ran: a corrected retry with the key runs', async () => {
      const invalid = ApiError.badRequest('Validation failed: item: must be a string');
      const refused = await send(orders.create, fakeRequest({ key: 'invalid-1', body: { item: 'x' } }), () => {
        throw invalid;
      });
      expect(refused.error).toBe(invalid);
      expect(await stored('invalid-1')).toEqual([]);
      expect(runs).toBe(0);
      const corrected = await send(orders.create, fakeRequest({ key: 'invalid-1', body: { item: 'y' } }));
      expect(corrected.value).toBeInstanceOf(RenderedBody);
      expect(runs).toBe(1);
    });

    it('refuses a handler that answers without completing its key, and frees the key', async () => {
      for (const outcome of ['incomplete', 'plain'] as const) {
        const { error } = await send(
          orders.create,
          fakeRequest({ key: `forgot-${outcome}`, body: { item: 'f', outcome } }),
        );
        expect((error as Error).message).toBe(
          'idempotent route POST /orders returned without completing its key inside its transaction',
        );
      }
      expect(await stored('forgot-incomplete')).toEqual([]);
    });
  });

  describe('claimed inside the use case transaction', () => {
    it('runs once and replays the answer', async () => {
      const first = await send(orders.inTransaction, fakeRequest({ key: 'tx-1' }));
      const again = await send(orders.inTransaction, fakeRequest({ key: 'tx-1' }));
      expect((again.value as RenderedBody).body).toBe((first.value as RenderedBody).body);
      expect(again.res.headers[REPLAY_HEADER]).toBe('true');
      expect(runs).toBe(2);
      expect(await stored('tx-1')).toHaveLength(1);
    });

    it('records a deterministic 4xx of the rolled-back transaction and replays it', async () => {
      const req = () => fakeRequest({ key: 'tx-conflict', body: { item: 'c', outcome: 'conflict' } });
      const first = await send(orders.inTransaction, req());
      expect((first.error as RenderedErrorResponse).status).toBe(409);
      expect(await stored('tx-conflict')).toEqual([
        { route: 'POST /orders', status: 'completed', response_status: 409 },
      ]);
      const again = await send(orders.inTransaction, req());
      expect((again.error as RenderedErrorResponse).body).toBe((first.error as RenderedErrorResponse).body);
      expect(again.res.headers[REPLAY_HEADER]).toBe('true');
    });

    it('records nothing for a 5xx', async () => {
      const { error } = await send(
        orders.inTransaction,
        fakeRequest({ key: 'tx-boom', body: { item: 'b', outcome: 'boom' } }),
      );
      expect((error as Error).message).toBe('boom');
      expect(await stored('tx-boom')).toEqual([]);
    });

    it('passes a key in use on untouched and records nothing for the request it turned away', async () => {
      await harness.dataSource.query(
        `INSERT INTO idempotency_keys (scope, key, route, fingerprint, status, lock_token, locked_at, expires_at)
         VALUES ('tenant-a', 'tx-running', 'POST /orders', $1, 'in_progress', gen_random_uuid(), now(),
                 now() + interval '1 hour')`,
        [requestFingerprint('POST', '/orders', Buffer.from(JSON.stringify({ item: 'a' })))],
      );
      const { error } = await send(orders.inTransaction, fakeRequest({ key: 'tx-running' }));
      expect((error as ApiError).code).toBe('IDEMPOTENCY_KEY_IN_USE');
      expect(await stored('tx-running')).toEqual([
        { route: 'POST /orders', status: 'in_progress', response_status: null },
      ]);
    });

    describe('a request refused before its handler ran', () => {
      const refuse = () => {
        throw ApiError.badRequest('Validation failed');
      };

      it('saves nothing', async () => {
        const { error } = await send(orders.inTransaction, fakeRequest({ key: 'tx-invalid' }), refuse);
        expect((error as ApiError).status).toBe(400);
        expect(await stored('tx-invalid')).toEqual([]);
      });

      it("answers 409 REUSED when the key is another request's", async () => {
        await send(orders.inTransaction, fakeRequest({ key: 'tx-other', body: { item: 'one' } }));
        const { error } = await send(
          orders.inTransaction,
          fakeRequest({ key: 'tx-other', body: { item: 'two' } }),
          refuse,
        );
        expect((error as ApiError).code).toBe('IDEMPOTENCY_KEY_REUSED');
      });

      it("replays the same request's stored answer", async () => {
        const first = await send(orders.inTransaction, fakeRequest({ key: 'tx-same' }));
        const again = await send(orders.inTransaction, fakeRequest({ key: 'tx-same' }), refuse);
        expect((again.value as RenderedBody).body).toBe((first.value as RenderedBody).body);
        expect(again.res.headers[REPLAY_HEADER]).toBe('true');
      });
    });
  });

  describe('IdempotentCall', () => {
    const target = (key: string): IdempotencyTarget => ({
      scope: 'tenant-a',
      key,
      route: 'POST /orders',
      fingerprint: FINGERPRINT,
    });
    const render = (data: unknown) => JSON.stringify({ data });
    const callFor = (key: string) => new IdempotentCall(harness.store, target(key), undefined, 201, render);
    const stored = (key: string) =>
      harness.dataSource.query(`SELECT status, response_status, response_body FROM idempotency_keys WHERE key = $1`, [
        key,
      ]);

    it('begins, completes and renders the answer it stores, inside one transaction', async () => {
      const call = callFor('call-1');
      expect([call.key, call.claimedUpFront, call.completed, call.claim, call.turnedAway]).toEqual([
        'call-1',
        false,
        false,
        undefined,
        false,
      ]);
      const answer = await harness.dataSource.transaction(async (manager) => {
        await call.begin(manager);
        expect(call.claim).toMatchObject({ scope: 'tenant-a', key: 'call-1' });
        return call.complete(manager, { n: 1 });
      });
      expect(answer).toEqual(new RenderedBody('{"data":{"n":1}}'));
      expect(call.completed).toBe(true);
      expect(await stored('call-1')).toEqual([
        { status: 'completed', response_status: 201, response_body: '{"data":{"n":1}}' },
      ]);
    });

    it('turns a completed key into an IdempotentReplay and marks the request turned away', async () => {
      const call = callFor('call-1');
      const replay = harness.dataSource.transaction((manager) => call.begin(manager));
      await expect(replay).rejects.toBeInstanceOf(IdempotentReplay);
      await expect(replay).rejects.toMatchObject({ replay: { kind: 'replay', status: 201, body: '{"data":{"n":1}}' } });
      expect(call.turnedAway).toBe(true);
      expect(call.claim).toBeUndefined();
    });

    it('marks the request turned away when the key is refused', async () => {
      const call = new IdempotentCall(
        harness.store,
        { ...target('call-1'), fingerprint: 'e'.repeat(64) },
        undefined,
        201,
        render,
      );
      await expect(harness.dataSource.transaction((manager) => call.begin(manager))).rejects.toMatchObject({
        code: 'IDEMPOTENCY_KEY_REUSED',
      });
      expect(call.turnedAway).toBe(true);
    });

    it('has nothing to begin when the key was claimed before the handler ran', async () => {
      const outcome = await harness.store.claim('tenant-a', 'up-front', 'POST /orders', FINGERPRINT);
      if (outcome.kind !== 'claimed') throw new Error('expected a claim');
      const call = new IdempotentCall(harness.store, target('up-front'), outcome.claim, 200, render);
      expect(call.claimedUpFront).toBe(true);
      await harness.dataSource.transaction(async (manager) => {
        await call.begin(manager);
        await call.complete(manager, 'done');
      });
      expect(call.claim).toBe(outcome.claim);
      expect(await stored('up-front')).toEqual([
        { status: 'completed', response_status: 200, response_body: '{"data":"done"}' },
      ]);
      expect(() => call.claimParameters()).toThrow('the key of this route is claimed before its handler runs');
    });

    it('refuses to complete a key it never began', async () => {
      await expect(harness.dataSource.transaction((manager) => callFor('never').complete(manager, 1))).rejects.toThrow(
        'idempotent use case completed a key it never began',
      );
    });

    it('settles a claim folded into the use case first statement, once', async () => {
      const call = callFor('folded-1');
      await expect(harness.dataSource.transaction((manager) => call.claimed(manager, true, true))).rejects.toThrow(
        'claimed() without claimParameters()',
      );
      await harness.dataSource.transaction(async (manager) => {
        const row = (await executeFirst(
          manager,
          withClaim(queryBuilder<IdempotencyDB>(), call.claimParameters())
            .selectFrom('idempotency_lock')
            .select(['held', claimedKey.as('claimed')]),
        ))!;
        await call.claimed(manager, row.held, row.claimed);
        await expect(call.claimed(manager, row.held, row.claimed)).rejects.toThrow(
          'claimed() without claimParameters()',
        );
        await call.complete(manager, 'folded');
      });
      expect(await stored('folded-1')).toHaveLength(1);
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
        expect.objectContaining({
          required: false,
          description: `A new key each time. ${IDEMPOTENCY_KEY_DESCRIPTION}`,
        }),
      ]);
    });

    it('documents no header for a key read from the body', () => {
      expect(headers(Routes.prototype.fromBody)).toBeUndefined();
    });

    it('says what the key is, how long it lives and what a reuse answers', () => {
      expect(IDEMPOTENCY_KEY_DESCRIPTION).toContain('1–255 printable ASCII characters (space to `~`). Keys are ');
      expect(IDEMPOTENCY_KEY_DESCRIPTION).toContain(
        'scoped to the caller and kept 24 hours (IDEMPOTENCY_TTL_MS). A retry',
      );
      expect(IDEMPOTENCY_KEY_DESCRIPTION).toContain(
        '`Idempotent-Replayed: true`; the same key with another body or on',
      );
      expect(IDEMPOTENCY_KEY_DESCRIPTION).toContain('gets 409 `IDEMPOTENCY_KEY_REUSED`, and while the first request');
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
    const req = (key?: string) =>
      ({ headers: key === undefined ? {} : { 'idempotency-key': key } }) as unknown as Request;

    it('tells whether a request sends a key, an empty one counting as none', () => {
      expect(carriesIdempotencyKey(req('k'))).toBe(true);
      expect(carriesIdempotencyKey(req(''))).toBe(false);
      expect(carriesIdempotencyKey(req())).toBe(false);
    });
  });
});
