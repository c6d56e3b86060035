import { Body, Controller, HttpCode, INestApplication, Post, UseGuards } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiError } from '@app/envelope';
import { waitUntil } from '@app/testing';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { executeFirst, queryBuilder } from '@app/platform';
import { Generated, sql } from 'kysely';
import { claimedKey, Idempotent, IdempotencyKey, IdempotentCall, requestFingerprint, withClaim } from '../src';
import { OrderDto, OrdersApp, startOrdersApp, TenantGuard } from './orders-fixture';

/** The fixture's own table, as a generated schema would declare it. */
interface OrdersDB {
  orders: { id: Generated<number>; tenant: string; item: string };
}

const orderQueries = queryBuilder<OrdersDB>();

/** A use case that claims its key as the first statement of its own transaction. */
@Controller('orders')
@UseGuards(TenantGuard)
class OrdersController {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  @Post()
  @Idempotent({ required: true, claim: 'in-transaction' })
  async create(@Body() body: OrderDto, @IdempotencyKey() call: IdempotentCall) {
    return this.dataSource.transaction(async (manager) => {
      await call.begin(manager);
      if (body.delayMs) await new Promise((resolve) => setTimeout(resolve, body.delayMs));
      const [order] = await manager.query(`INSERT INTO orders (tenant, item) VALUES ($1, $2) RETURNING id, item`, [
        't',
        body.item,
      ]);
      if (body.item === 'sold-out') throw new ApiError(409, 'SOLD_OUT', 'Sold out');
      if (body.item === 'explode') throw new Error('boom');
      return call.complete(manager, { order });
    });
  }

  /** The claim folded into the use case's first statement: one round trip for claim and insert. */
  @Post('folded')
  @Idempotent({ required: true, claim: 'in-transaction' })
  async folded(@Body() body: OrderDto, @IdempotencyKey() call: IdempotentCall) {
    return this.dataSource.transaction(async (manager) => {
      const row = (await executeFirst(
        manager,
        withClaim(orderQueries, call.claimParameters())
          .with('inserted', (qb) =>
            qb
              .insertInto('orders')
              .columns(['tenant', 'item'])
              .expression((eb) =>
                eb
                  .selectFrom('idempotency_lock')
                  .select([sql.lit('t').as('tenant'), sql<string>`${body.item}`.as('item')])
                  .where(claimedKey),
              )
              .returning(['id', 'item']),
          )
          .selectFrom('idempotency_lock')
          .leftJoin('inserted', (join) => join.onTrue())
          .select(['held', claimedKey.as('claimed'), 'inserted.id', 'inserted.item']),
      ))!;
      await call.claimed(manager, row.held, row.claimed);
      if (body.delayMs) await new Promise((resolve) => setTimeout(resolve, body.delayMs));
      return call.complete(manager, { order: { id: row.id, item: row.item } });
    });
  }

  @Post('other')
  @HttpCode(200)
  @Idempotent({ required: true, claim: 'in-transaction' })
  async other(@Body() body: OrderDto, @IdempotencyKey() call: IdempotentCall) {
    return this.dataSource.transaction(async (manager) => {
      await call.begin(manager);
      return call.complete(manager, { item: body.item });
    });
  }
}

describe('idempotency claimed inside the business transaction, against real PostgreSQL', () => {
  let orders: OrdersApp;
  let app: INestApplication;
  let dataSource: DataSource;
  // Long enough that a burst of 50 on a loaded machine finishes before the first key expires.
  const TTL_MS = 5000;
  const LOCK_TIMEOUT_MS = 2000;

  beforeAll(async () => {
    orders = await startOrdersApp(OrdersController, {
      databasePrefix: 'idemtx',
      ttlMs: TTL_MS,
      lockTimeoutMs: LOCK_TIMEOUT_MS,
    });
    ({ app, dataSource } = orders);
  });
  afterAll(() => orders.close());

  const post: OrdersApp['post'] = (...args) => orders.post(...args);
  const countOrders = (item: string) => orders.countOrders(item);

  it('refuses a request without a key with 400', async () => {
    await post(undefined, { item: 'a' }).expect(400);
  });

  it('replays the byte-identical body with Idempotent-Replayed and runs the action once', async () => {
    const first = await post('replay-1', { item: 'replayed' }).expect(201);
    const second = await post('replay-1', { item: 'replayed' }).expect(201);
    expect(second.text).toBe(first.text);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(await countOrders('replayed')).toBe(1);
  });

  it('answers 409 IDEMPOTENCY_KEY_REUSED for another body or another route, and runs nothing', async () => {
    await post('mismatch-1', { item: 'one' }).expect(201);
    const body = await post('mismatch-1', { item: 'two' }).expect(409);
    expect(body.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const route = await post('mismatch-1', { item: 'one' }, 'tenant-a', '/orders/other').expect(409);
    expect(route.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await countOrders('two')).toBe(0);
  });

  it('scopes keys per tenant', async () => {
    await post('shared-key', { item: 'tenant-scoped' }, 'tenant-a').expect(201);
    const other = await post('shared-key', { item: 'tenant-scoped' }, 'tenant-b').expect(201);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(await countOrders('tenant-scoped')).toBe(2);
  });

  it('executes exactly one of 50 concurrent requests with one key; the others replay or get IDEMPOTENCY_KEY_IN_USE', async () => {
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => post('concurrent-1', { item: 'concurrent', delayMs: 150 })),
    );
    expect(await countOrders('concurrent')).toBe(1);
    const executed = responses.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined);
    expect(executed).toHaveLength(1);
    const inUse = responses.filter((r) => r.status === 409);
    expect(inUse.length).toBeGreaterThan(0);
    for (const r of inUse) {
      expect(r.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
      expect(r.headers['retry-after']).toBe('1');
    }
    expect(responses.every((r) => r.status === 201 || r.status === 409)).toBe(true);
  });

  it('folds the claim into the first business statement: one of 50 concurrent requests inserts, the others replay or get IN_USE', async () => {
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        post('folded-1', { item: 'folded', delayMs: 150 }, 'tenant-a', '/orders/folded'),
      ),
    );
    expect(await countOrders('folded')).toBe(1);
    const executed = responses.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined);
    expect(executed).toHaveLength(1);
    for (const r of responses.filter((r) => r.status !== 201)) {
      expect(r.status).toBe(409);
      expect(r.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    }
    const replay = await post('folded-1', { item: 'folded', delayMs: 150 }, 'tenant-a', '/orders/folded').expect(201);
    expect(replay.text).toBe(executed[0].text);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const reused = await post('folded-1', { item: 'other' }, 'tenant-a', '/orders/folded').expect(409);
    expect(reused.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await countOrders('other')).toBe(0);
  });

  it('answers IDEMPOTENCY_KEY_IN_USE at once while the first request runs, without waiting for it', async () => {
    const first = post('running-1', { item: 'running', delayMs: 1500 }).then((r) => r);
    await waitUntil(() => orders.keyClaimHeld('running-1'), 'the first request holds its claim');
    const startedAt = Date.now();
    const second = await post('running-1', { item: 'running', delayMs: 1500 });
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect(Date.now() - startedAt).toBeLessThan(1000);
    expect((await first).status).toBe(201);
    expect(await countOrders('running')).toBe(1);
  });

  it('stores a deterministic 4xx (business rows rolled back) and replays it without running again', async () => {
    const first = await post('sold-out-1', { item: 'sold-out' }).expect(409);
    const second = await post('sold-out-1', { item: 'sold-out' }).expect(409);
    expect(second.text).toBe(first.text);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(await countOrders('sold-out')).toBe(0);
  });

  it('saves nothing for a body refused by validation: a corrected retry with the same key runs', async () => {
    const refused = await post('invalid-1', { item: 7 }).expect(400);
    expect(refused.headers['idempotent-replayed']).toBeUndefined();
    expect(await dataSource.query(`SELECT 1 FROM idempotency_keys WHERE key = 'invalid-1'`)).toHaveLength(0);
    const corrected = await post('invalid-1', { item: 'corrected' }).expect(201);
    expect(corrected.headers['idempotent-replayed']).toBeUndefined();
    expect(await countOrders('corrected')).toBe(1);
  });

  it('judges the key before the body: a key of another request answers REUSED even to an invalid body', async () => {
    await post('valid-then-invalid', { item: 'fine' }).expect(201);
    const reused = await post('valid-then-invalid', { item: 8 }).expect(409);
    expect(reused.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('lets requests with different keys run at the same time: each key has its own lock', async () => {
    const first = post('parallel-a', { item: 'parallel', delayMs: 1500 }).then((r) => r);
    await waitUntil(() => orders.keyClaimHeld('parallel-a'), 'the first request holds its claim');
    const second = await post('parallel-b', { item: 'parallel' });
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect((await first).status).toBe(201);
    expect(await countOrders('parallel')).toBe(2);
  });

  it('keeps no record after a 5xx, so a retry runs again', async () => {
    await post('explode-1', { item: 'explode' }).expect(500);
    expect(await countOrders('explode')).toBe(0);
    expect(await dataSource.query(`SELECT 1 FROM idempotency_keys WHERE key = 'explode-1'`)).toHaveLength(0);
    await post('explode-1', { item: 'explode' }).expect(500);
  });

  it('keeps the answer of a transaction that outlived the TTL for a TTL from its commit: the next retry replays it', async () => {
    const first = await post('slower-than-ttl', { item: 'slower-than-ttl', delayMs: TTL_MS + 300 }).expect(201);
    const retry = await post('slower-than-ttl', { item: 'slower-than-ttl', delayMs: TTL_MS + 300 }).expect(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.text).toBe(first.text);
    expect(await countOrders('slower-than-ttl')).toBe(1);
  });

  it('commits the stored response together with the business rows', async () => {
    await post('atomic-1', { item: 'atomic' }).expect(201);
    const [row] = await dataSource.query(
      `SELECT status, response_status, response_body FROM idempotency_keys WHERE key = 'atomic-1'`,
    );
    expect(row).toMatchObject({ status: 'completed', response_status: 201 });
    expect(JSON.parse(row.response_body).data.order.item).toBe('atomic');
  });

  it('takes over a claim older than the lock timeout, but not a fresh one', async () => {
    const body = JSON.stringify({ item: 'stale' });
    const insertClaim = (key: string, lockedAgoMs: number) =>
      dataSource.query(
        `INSERT INTO idempotency_keys (scope, key, route, fingerprint, status, lock_token, locked_at, expires_at)
         VALUES ('tenant-a', $1, 'POST /orders', $2, 'in_progress', gen_random_uuid(),
                 now() - $3 * interval '1 millisecond', now() + interval '1 hour')`,
        [key, requestFingerprint('POST', '/orders', Buffer.from(body)), lockedAgoMs],
      );
    await insertClaim('stale-1', LOCK_TIMEOUT_MS + 1000);
    await insertClaim('fresh-1', 0);
    const send = (key: string) =>
      request(app.getHttpServer())
        .post('/orders')
        .set('x-tenant', 'tenant-a')
        .set('Idempotency-Key', key)
        .set('Content-Type', 'application/json')
        .send(body);
    await send('stale-1').expect(201);
    const fresh = await send('fresh-1').expect(409);
    expect(fresh.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect(await countOrders('stale')).toBe(1);
  });

  it('forgets a key after it expires', async () => {
    await post('expiring-1', { item: 'expiring' }).expect(201);
    await waitUntil(() => orders.keyExpired('expiring-1'), 'the key expires', TTL_MS + 1000);
    const again = await post('expiring-1', { item: 'expiring' }).expect(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(await countOrders('expiring')).toBe(2);
  });
});
