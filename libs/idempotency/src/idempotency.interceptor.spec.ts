import { HttpCode } from '@nestjs/common';
import { ApiError, RenderedBody, RenderedErrorResponse } from '@app/envelope';
import type { Request } from 'express';
import { fakeRequest, Harness, startHarness, through } from '../test/interceptor-harness';
import { requestFingerprint } from './idempotency-decisions';
import { Idempotent, idempotentCallOf, REPLAY_HEADER } from './idempotency.interceptor';
import type { IdempotentCall } from './idempotent-call';

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
      expect(await stored('optional-1')).toEqual([{ route: 'POST /orders', status: 'completed', response_status: 201 }]);
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
      const first = await send(orders.create, fakeRequest({ key: 'conflict-1', body: { item: 'c', outcome: 'conflict' } }));
      const rendered = first.error as RenderedErrorResponse;
      expect(rendered).toBeInstanceOf(RenderedErrorResponse);
      expect(rendered.status).toBe(409);
      expect(rendered.headers).toEqual({ 'X-Why': 'stock' });
      expect(JSON.parse(rendered.body).error.code).toBe('SOLD_OUT');
      expect(await stored('conflict-1')).toEqual([{ route: 'POST /orders', status: 'completed', response_status: 409 }]);

      const again = await send(orders.create, fakeRequest({ key: 'conflict-1', body: { item: 'c', outcome: 'conflict' } }));
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
    ] as const)('releases the key on %s and passes the error on, so a retry runs again', async (_what, outcome, status) => {
      const req = () => fakeRequest({ key: `release-${outcome}`, body: { item: 'x', outcome } });
      const first = await send(orders.create, req());
      expect(first.error).not.toBeInstanceOf(RenderedErrorResponse);
      if (status === 429) expect((first.error as ApiError).status).toBe(429);
      expect(await stored(`release-${outcome}`)).toEqual([]);
      await send(orders.create, req());
      expect(runs).toBe(2);
    });

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
        const { error } = await send(orders.create, fakeRequest({ key: `forgot-${outcome}`, body: { item: 'f', outcome } }));
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
      expect(await stored('tx-conflict')).toEqual([{ route: 'POST /orders', status: 'completed', response_status: 409 }]);
      const again = await send(orders.inTransaction, req());
      expect((again.error as RenderedErrorResponse).body).toBe((first.error as RenderedErrorResponse).body);
      expect(again.res.headers[REPLAY_HEADER]).toBe('true');
    });

    it('records nothing for a 5xx', async () => {
      const { error } = await send(orders.inTransaction, fakeRequest({ key: 'tx-boom', body: { item: 'b', outcome: 'boom' } }));
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
      expect(await stored('tx-running')).toEqual([{ route: 'POST /orders', status: 'in_progress', response_status: null }]);
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
        const { error } = await send(orders.inTransaction, fakeRequest({ key: 'tx-other', body: { item: 'two' } }), refuse);
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
});
