import { Body, Controller, HttpCode, INestApplication, Param, Post, UseGuards } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiError } from '@app/envelope';
import { IsString } from 'class-validator';
import { waitUntil } from '@app/testing';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { Idempotent, IdempotencyKey, IdempotencyStore, IdempotentCall } from '../src';
import { OrderDto, OrdersApp, startOrdersApp, TenantGuard } from './orders-fixture';

class BodyKeyDto {
  @IsString() item: string;
  @IsString() idempotencyKey: string;
}

@Controller('orders')
@UseGuards(TenantGuard)
class OrdersController {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  @Post()
  @Idempotent({ required: true })
  async create(@Body() body: OrderDto, @IdempotencyKey() call: IdempotentCall) {
    return this.dataSource.transaction(async (manager) => {
      if (body.delayMs) await new Promise((resolve) => setTimeout(resolve, body.delayMs));
      const [order] = await manager.query(`INSERT INTO orders (tenant, item) VALUES ($1, $2) RETURNING id, item`, [
        't',
        body.item,
      ]);
      if (body.item === 'sold-out') throw new ApiError(409, 'SOLD_OUT', 'Sold out');
      if (body.item === 'explode') throw new Error('boom');
      if (body.item === 'busy') throw new ApiError(429, 'BUSY', 'Too many requests');
      return call.complete(manager, { order });
    });
  }

  /** A parameterised path: the same key and body to another id is another request. */
  @Post('items/:id')
  @Idempotent({ required: true })
  async createItem(@Param('id') id: string, @Body() body: OrderDto, @IdempotencyKey() call: IdempotentCall) {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`INSERT INTO orders (tenant, item) VALUES ($1, $2)`, ['t', body.item]);
      return call.complete(manager, { id, item: body.item });
    });
  }

  /** A key is optional here: without one the action simply runs each time. */
  @Post('optional')
  @Idempotent({ required: false })
  async optional(@Body() body: OrderDto, @IdempotencyKey() call: IdempotentCall | undefined) {
    return this.dataSource.transaction(async (manager) => {
      const [order] = await manager.query(`INSERT INTO orders (tenant, item) VALUES ($1, $2) RETURNING id`, [
        't',
        body.item,
      ]);
      return call ? call.complete(manager, { order }) : { order };
    });
  }

  @Post('by-body-key')
  @HttpCode(200)
  @Idempotent({ required: true, keyFrom: (req) => (req.body as { idempotencyKey?: unknown }).idempotencyKey })
  async byBodyKey(@Body() body: BodyKeyDto, @IdempotencyKey() call: IdempotentCall) {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`INSERT INTO orders (tenant, item) VALUES ($1, $2)`, ['t', body.item]);
      return call.complete(manager, { item: body.item });
    });
  }
}

describe('idempotency against real PostgreSQL', () => {
  let orders: OrdersApp;
  let app: INestApplication;
  let dataSource: DataSource;
  const TTL_MS = 1500;

  beforeAll(async () => {
    orders = await startOrdersApp(OrdersController, { databasePrefix: 'idem', ttlMs: TTL_MS, lockTimeoutMs: 60_000 });
    ({ app, dataSource } = orders);
  });
  afterAll(() => orders.close());

  const post: OrdersApp['post'] = (...args) => orders.post(...args);
  const countOrders = (item: string) => orders.countOrders(item);

  it('refuses a request without a key with 400', async () => {
    const res = await post(undefined, { item: 'a' }).expect(400);
    expect(res.body.error.details).toEqual([{ field: 'Idempotency-Key', problem: 'is required' }]);
  });

  it('refuses a key longer than 255 characters', async () => {
    await post('k'.repeat(256), { item: 'a' }).expect(400);
  });

  it('replays the byte-identical body with Idempotent-Replayed and runs the action once', async () => {
    const first = await post('replay-1', { item: 'replayed' }).expect(201);
    const second = await post('replay-1', { item: 'replayed' }).expect(201);
    expect(second.text).toBe(first.text);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(await countOrders('replayed')).toBe(1);
  });

  it('answers 409 IDEMPOTENCY_KEY_REUSED when the key comes back with another body', async () => {
    await post('mismatch-1', { item: 'one' }).expect(201);
    const res = await post('mismatch-1', { item: 'two' }).expect(409);
    expect(res.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await countOrders('two')).toBe(0);
  });

  it('answers 409 IDEMPOTENCY_KEY_REUSED when the key comes back on another route', async () => {
    await post('route-2', { item: 'route' }).expect(201);
    const res = await request(app.getHttpServer())
      .post('/orders/by-body-key')
      .set('x-tenant', 'tenant-a')
      .send({ item: 'route', idempotencyKey: 'route-2' })
      .expect(409);
    expect(res.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('scopes keys per tenant: the same key of another tenant is a new action', async () => {
    await post('shared-key', { item: 'tenant-scoped' }, 'tenant-a').expect(201);
    const other = await post('shared-key', { item: 'tenant-scoped' }, 'tenant-b').expect(201);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(await countOrders('tenant-scoped')).toBe(2);
  });

  it('answers another id of a parameterised route with REUSED, never the first id\'s answer', async () => {
    const first = await post('param-1', { item: 'param' }, 'tenant-a', '/orders/items/1').expect(201);
    expect(first.body.data.id).toBe('1');
    const other = await post('param-1', { item: 'param' }, 'tenant-a', '/orders/items/2').expect(409);
    expect(other.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await countOrders('param')).toBe(1);
  });

  it('runs an optional-key route without a key each time, and under a key once', async () => {
    await post(undefined, { item: 'optional' }, 'tenant-a', '/orders/optional').expect(201);
    const unkeyed = await post(undefined, { item: 'optional' }, 'tenant-a', '/orders/optional').expect(201);
    expect(unkeyed.headers['idempotent-replayed']).toBeUndefined();
    expect(await countOrders('optional')).toBe(2);
    await post('optional-1', { item: 'optional' }, 'tenant-a', '/orders/optional').expect(201);
    const replayed = await post('optional-1', { item: 'optional' }, 'tenant-a', '/orders/optional').expect(201);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(await countOrders('optional')).toBe(3);
  });

  it('saves nothing for a body refused by validation: a corrected retry with the same key runs', async () => {
    const refused = await post('invalid-1', { item: 7 }).expect(400);
    expect(refused.headers['idempotent-replayed']).toBeUndefined();
    expect(await dataSource.query(`SELECT 1 FROM idempotency_keys WHERE key = 'invalid-1'`)).toHaveLength(0);
    const corrected = await post('invalid-1', { item: 'corrected' }).expect(201);
    expect(corrected.headers['idempotent-replayed']).toBeUndefined();
    expect(await countOrders('corrected')).toBe(1);
  });

  it('releases the key on a 429, so a retry runs again', async () => {
    await post('busy-1', { item: 'busy' }).expect(429);
    expect(await dataSource.query(`SELECT 1 FROM idempotency_keys WHERE key = 'busy-1'`)).toHaveLength(0);
    const retry = await post('busy-1', { item: 'busy' }).expect(429);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });

  it('stores a deterministic 4xx and replays it without running the action again', async () => {
    const first = await post('sold-out-1', { item: 'sold-out' }).expect(409);
    const second = await post('sold-out-1', { item: 'sold-out' }).expect(409);
    expect(second.text).toBe(first.text);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(await countOrders('sold-out')).toBe(0);
  });

  it('rolls the business rows back and releases the key on a 5xx, so a retry runs again', async () => {
    await post('explode-1', { item: 'explode' }).expect(500);
    expect(await countOrders('explode')).toBe(0);
    const rows = await dataSource.query(`SELECT 1 FROM idempotency_keys WHERE key = 'explode-1'`);
    expect(rows).toHaveLength(0);
    await post('explode-1', { item: 'explode' }).expect(500);
  });

  it('commits the stored response together with the business rows', async () => {
    await post('atomic-1', { item: 'atomic' }).expect(201);
    const [row] = await dataSource.query(
      `SELECT status, response_status, response_body FROM idempotency_keys WHERE key = 'atomic-1'`,
    );
    expect(row).toMatchObject({ status: 'completed', response_status: 201 });
    expect(JSON.parse(row.response_body).data.order.item).toBe('atomic');
  });

  it('takes the key from the body when the route says so', async () => {
    const body = { item: 'body-key', idempotencyKey: 'bk-1' };
    const first = await request(app.getHttpServer()).post('/orders/by-body-key').send(body).expect(200);
    const again = await request(app.getHttpServer()).post('/orders/by-body-key').send(body).expect(200);
    expect(again.text).toBe(first.text);
    expect(await countOrders('body-key')).toBe(1);
  });

  it('forgets a key after it expires and purges expired records', async () => {
    await post('expiring-1', { item: 'expiring' }).expect(201);
    await waitUntil(() => orders.keyExpired('expiring-1'), 'the key expires');
    const again = await post('expiring-1', { item: 'expiring' }).expect(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(await countOrders('expiring')).toBe(2);

    await waitUntil(() => orders.keyExpired('expiring-1'), 'the renewed key expires');
    const purged = await app.get(IdempotencyStore).purgeExpired();
    expect(purged).toBeGreaterThan(0);
    const [{ n }] = await dataSource.query(`SELECT count(*) AS n FROM idempotency_keys WHERE expires_at < now()`);
    expect(Number(n)).toBe(0);
  });

  it('keeps the answer of a request that outlived the TTL for a TTL from its completion: the next retry replays it', async () => {
    const first = await post('slower-than-ttl', { item: 'slower-than-ttl', delayMs: TTL_MS + 300 }).expect(201);
    const retry = await post('slower-than-ttl', { item: 'slower-than-ttl', delayMs: TTL_MS + 300 }).expect(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.text).toBe(first.text);
    expect(await countOrders('slower-than-ttl')).toBe(1);
  });

  it('keeps an expired key whose request still runs: a retry gets 409 IDEMPOTENCY_KEY_IN_USE, never a second run', async () => {
    const first = post('outlives-ttl', { item: 'slow-expiring', delayMs: TTL_MS + 700 });
    const running = first.then((res) => res);
    await waitUntil(() => orders.keyExpired('outlives-ttl'), 'the running key expires');
    await app.get(IdempotencyStore).purgeExpired();
    const kept = await dataSource.query(`SELECT status FROM idempotency_keys WHERE key = 'outlives-ttl'`);
    expect(kept).toEqual([{ status: 'in_progress' }]);
    const retry = await post('outlives-ttl', { item: 'slow-expiring', delayMs: TTL_MS + 700 }).expect(409);
    expect(retry.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect((await running).status).toBe(201);
    expect(await countOrders('slow-expiring')).toBe(1);
  });

  /*
   * The burst runs on an app of its own whose keys live a minute: under load 50 requests can take
   * longer than the short TTL above, and a key expiring mid-burst would rightly let a second order in.
   */
  describe('under a burst', () => {
    let burst: OrdersApp;
    beforeAll(async () => {
      burst = await startOrdersApp(OrdersController, { databasePrefix: 'idemburst', ttlMs: 60_000, lockTimeoutMs: 60_000 });
    });
    afterAll(() => burst.close());

    it('executes exactly one of 50 concurrent requests with one key; the others replay or get IDEMPOTENCY_KEY_IN_USE', async () => {
      const responses = await Promise.all(
        Array.from({ length: 50 }, () => burst.post('concurrent-1', { item: 'concurrent', delayMs: 150 })),
      );
      const statuses = responses.map((r) => r.status);
      expect(await burst.countOrders('concurrent')).toBe(1);
      const executed = responses.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined);
      expect(executed).toHaveLength(1);
      for (const r of responses.filter((r) => r.status === 409)) {
        expect(r.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
        expect(r.headers['retry-after']).toBe('1');
      }
      expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    });
  });
});
