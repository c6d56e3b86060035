import { CallHandler } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { setPrincipal } from '@app/auth';
import { voucherEnvelope } from '@app/envelope';
import { Database, poolConfig } from '@app/platform';
import { createTestDatabase, TestDatabase, testDatabaseSettings, testDataSource } from '@app/testing';
import type { Request, Response } from 'express';
import { AsyncResource } from 'node:async_hooks';
import { Pool } from 'pg';
import { defer, lastValueFrom } from 'rxjs';
import { DataSource } from 'typeorm';
import { CreateIdempotencyKeys1763683200000, IdempotencyInterceptor, IdempotencyStore } from '../src';

/*
 * The interceptor and the store without an HTTP server: a real PostgreSQL database, Nest's own
 * execution context, and a call handler that runs "pipes" and then the handler the way Nest 11 does
 * (its run bound to the async context of `handle()`), so that a unit test costs milliseconds.
 */

export const LOCK_TIMEOUT_MS = 2000;

export interface Harness {
  dataSource: DataSource;
  store: IdempotencyStore;
  interceptor: IdempotencyInterceptor;
  close(): Promise<void>;
}

export async function startHarness(prefix: string): Promise<Harness> {
  const database: TestDatabase = await createTestDatabase(prefix, [CreateIdempotencyKeys1763683200000]);
  const dataSource = testDataSource(database.name);
  await dataSource.initialize();
  const pool = new Database(new Pool(poolConfig(testDatabaseSettings(database.name, 4))));
  const store = new IdempotencyStore(pool, { ttlMs: 60_000, lockTimeoutMs: LOCK_TIMEOUT_MS, purgeIntervalMs: 0 });
  return {
    dataSource,
    store,
    interceptor: new IdempotencyInterceptor(new Reflector(), store, voucherEnvelope),
    async close() {
      await pool.end();
      await dataSource.destroy();
      await database.drop();
    },
  };
}

/** The parts of an Express response the interceptor touches. */
export class FakeResponse {
  readonly headers: Record<string, string> = {};
  statusCode = 0;
  setHeader(name: string, value: string): this {
    this.headers[name] = value;
    return this;
  }
  status(code: number): this {
    this.statusCode = code;
    return this;
  }
}

export interface RequestShape {
  key?: unknown;
  tenant?: string | null;
  method?: string;
  path?: string;
  routePath?: string | null;
  body?: object;
}

export function fakeRequest(shape: RequestShape = {}): Request {
  const body = shape.body ?? { item: 'a' };
  const req = {
    headers: shape.key === undefined ? {} : { 'idempotency-key': shape.key },
    method: shape.method ?? 'POST',
    path: shape.path ?? '/orders',
    route: shape.routePath === null ? undefined : { path: shape.routePath ?? '/orders' },
    body,
    rawBody: Buffer.from(JSON.stringify(body)),
  } as unknown as Request;
  if (shape.tenant !== null) setPrincipal(req, { tenantId: shape.tenant ?? 'tenant-a', permissions: [] });
  return req;
}

export interface Outcome {
  value?: unknown;
  error?: unknown;
  res: FakeResponse;
}

/**
 * Runs `handler` (a method of `instance`, with the request as its argument) through the interceptor.
 * `pipes` runs first, as Nest's pipes do; throwing there is a request refused before its handler ran.
 */
export async function through(
  interceptor: IdempotencyInterceptor,
  instance: object,
  handler: (req: Request) => unknown,
  req: Request,
  pipes: () => void = () => undefined,
): Promise<Outcome> {
  const res = new FakeResponse();
  const context = new ExecutionContextHost([req, res as unknown as Response, () => undefined], null, handler);
  context.setType('http');
  const next: CallHandler = {
    handle: () =>
      defer(
        AsyncResource.bind(async () => {
          pipes();
          return handler.call(instance, req);
        }),
      ),
  };
  try {
    return { value: await lastValueFrom(interceptor.intercept(context, next)), res };
  } catch (error) {
    return { error, res };
  }
}
