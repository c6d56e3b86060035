import { ApiError, RenderedBody } from '@app/envelope';
import type { Request } from 'express';
import { fakeRequest, Harness, startHarness, through } from '../test/interceptor-harness';
import { Idempotent, idempotentCallOf, REPLAY_HEADER } from './idempotency.interceptor';

/** A failure recorded after another request with the same key completed: that request's answer wins. */
describe('IdempotencyInterceptor when another request with the key gets in first', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness('idemrace');
  });
  afterAll(() => harness.close());

  class Orders {
    @Idempotent({ required: true, claim: 'in-transaction' })
    async create(req: Request) {
      const call = idempotentCallOf(req)!;
      return harness.dataSource.transaction(async (manager) => {
        await call.begin(manager);
        return call.complete(manager, { item: 'first' });
      });
    }

    /** Fails before claiming its key, while a twin request with the same key and body completes. */
    @Idempotent({ required: true, claim: 'in-transaction' })
    async raced(req: Request) {
      await through(harness.interceptor, orders, orders.create, fakeRequest({ key: 'race-1' }));
      throw new ApiError(409, 'SOLD_OUT', 'Sold out');
    }
  }
  const orders = new Orders();

  it('answers with the stored answer of the request that completed, not its own failure', async () => {
    const { value, error, res } = await through(
      harness.interceptor,
      orders,
      orders.raced,
      fakeRequest({ key: 'race-1' }),
    );
    expect(error).toBeUndefined();
    expect(JSON.parse((value as RenderedBody).body).data).toEqual({ item: 'first' });
    expect(res.headers[REPLAY_HEADER]).toBe('true');
  });
});
