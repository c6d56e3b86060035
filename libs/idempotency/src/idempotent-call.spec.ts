import { RenderedBody } from '@app/envelope';
import { Harness, startHarness } from '../test/interceptor-harness';
import { claimCtes } from './idempotency.store';
import { IdempotentCall, IdempotentReplay } from './idempotent-call';
import type { IdempotencyTarget } from './idempotency-target';

/** The column holds a SHA-256 in hex: a shorter value would come back padded. */
const FINGERPRINT = 'f'.repeat(64);

describe('IdempotentCall', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness('idemcall');
  });
  afterAll(() => harness.close());

  const target = (key: string): IdempotencyTarget => ({ scope: 'tenant-a', key, route: 'POST /orders', fingerprint: FINGERPRINT });
  const render = (data: unknown) => JSON.stringify({ data });
  const callFor = (key: string) => new IdempotentCall(harness.store, target(key), undefined, 201, render);
  const stored = (key: string) =>
    harness.dataSource.query(`SELECT status, response_status, response_body FROM idempotency_keys WHERE key = $1`, [key]);

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
    expect(await stored('call-1')).toEqual([{ status: 'completed', response_status: 201, response_body: '{"data":{"n":1}}' }]);
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
    const call = new IdempotentCall(harness.store, { ...target('call-1'), fingerprint: 'e'.repeat(64) }, undefined, 201, render);
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
    expect(await stored('up-front')).toEqual([{ status: 'completed', response_status: 200, response_body: '{"data":"done"}' }]);
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
      const [row] = await manager.query(
        `WITH ${claimCtes(1)} SELECT held, EXISTS (SELECT 1 FROM idempotency_claim) AS claimed FROM idempotency_lock`,
        call.claimParameters(),
      );
      await call.claimed(manager, row.held, row.claimed);
      await expect(call.claimed(manager, row.held, row.claimed)).rejects.toThrow('claimed() without claimParameters()');
      await call.complete(manager, 'folded');
    });
    expect(await stored('folded-1')).toHaveLength(1);
  });
});
