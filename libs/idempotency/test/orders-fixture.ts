import { CanActivate, ExecutionContext, INestApplication, Injectable, Module, Type } from '@nestjs/common';
import { setPrincipal } from '@app/auth';
import { EnvelopeModule, voucherEnvelope } from '@app/envelope';
import { databaseModule, HttpFoundationModule, loadConfig, ServiceConfig } from '@app/platform';
import { createTestApp, createTestDatabase, TestDatabase, testEnv, testRedisPrefix } from '@app/testing';
import { IsInt, IsOptional, IsString } from 'class-validator';
import type { Request } from 'express';
import request from 'supertest';
import { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import { CreateIdempotencyKeys1763683200000, IdempotencyModule } from '../src';
import { advisoryLockId } from '../src/idempotency-target';

/** The business table of the idempotency tests: an order per executed request. */
class CreateOrders1700000000000 implements MigrationInterface {
  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE orders (id serial PRIMARY KEY, tenant text NOT NULL, item text NOT NULL)`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE orders`);
  }
}
const migrations = [CreateIdempotencyKeys1763683200000, CreateOrders1700000000000];

export class OrderDto {
  @IsString() item: string;
  @IsOptional() @IsInt() delayMs?: number;
}

/** Stands in for a service's token guard: the tenant comes from a header. */
@Injectable()
export class TenantGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    setPrincipal(req, { tenantId: String(req.headers['x-tenant'] ?? 'tenant-a'), permissions: [] });
    return true;
  }
}

export interface OrdersApp {
  app: INestApplication;
  dataSource: DataSource;
  post(key: string | undefined, body: object, tenant?: string, path?: string): request.Test;
  countOrders(item: string): Promise<number>;
  /** Whether the stored record of `key` has outlived its expiry, as the claim's own clock (PostgreSQL's) sees it. */
  keyExpired(key: string, tenant?: string): Promise<boolean>;
  /** Whether a request holding `key` runs right now: its transaction holds the key's advisory lock. */
  keyClaimHeld(key: string, tenant?: string): Promise<boolean>;
  close(): Promise<void>;
}

/** An app with the given orders controller on its own database, keys living `ttlMs`. */
export async function startOrdersApp(
  controller: Type<unknown>,
  options: { databasePrefix: string; ttlMs: number; lockTimeoutMs: number },
): Promise<OrdersApp> {
  const database: TestDatabase = await createTestDatabase(options.databasePrefix, migrations);
  const config = loadConfig(ServiceConfig, testEnv(database.name, testRedisPrefix(), { DB_POOL_SIZE: '60' }));
  @Module({
    imports: [
      EnvelopeModule.forRoot(voucherEnvelope),
      HttpFoundationModule.forRoot({ bodyLimit: '10kb' }),
      databaseModule(config, migrations),
      IdempotencyModule.forRoot({ ttlMs: options.ttlMs, lockTimeoutMs: options.lockTimeoutMs, purgeIntervalMs: 0 }),
    ],
    controllers: [controller],
  })
  class TestModule {}
  const app = await createTestApp(TestModule);
  const dataSource = app.get(DataSource);
  return {
    app,
    dataSource,
    post(key, body, tenant = 'tenant-a', path = '/orders') {
      const req = request(app.getHttpServer()).post(path).set('x-tenant', tenant);
      return key === undefined ? req.send(body) : req.set('Idempotency-Key', key).send(body);
    },
    countOrders: async (item) =>
      Number((await dataSource.query(`SELECT count(*) AS n FROM orders WHERE item = $1`, [item]))[0].n),
    async keyExpired(key, tenant = 'tenant-a') {
      const rows: Array<{ expired: boolean }> = await dataSource.query(
        `SELECT expires_at < now() AS expired FROM idempotency_keys WHERE scope = $1 AND key = $2`,
        [tenant, key],
      );
      return rows[0]?.expired === true;
    },
    async keyClaimHeld(key, tenant = 'tenant-a') {
      // pg_locks shows a 64-bit advisory lock as its high half (classid) and its low half (objid).
      const rows: unknown[] = await dataSource.query(
        `SELECT 1 FROM pg_locks
          WHERE locktype = 'advisory' AND granted AND objsubid = 1
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            AND ((classid::bigint << 32) | objid::bigint) = $1::bigint`,
        [advisoryLockId(tenant, key)],
      );
      return rows.length > 0;
    },
    async close() {
      await app.close();
      await database.drop();
    },
  };
}
