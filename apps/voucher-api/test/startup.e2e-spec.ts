import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createConnection } from 'node:net';
import {
  acceptsConnections,
  createTestDatabase,
  defaultTestBackend,
  freePort,
  spawnServiceMain,
  startServiceProcess,
  TestDatabase,
  testEnv,
  testRedisPrefix,
  waitUntil,
} from '@app/testing';
import { voucherMigrations } from '../src/database/migrations';
import { DEV_SEALING_KEY } from '../src/config/sealing-keys';

const MAIN = 'apps/voucher-api/src/main.ts';

describe('voucher-api process', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('voucher', voucherMigrations);
  });
  afterAll(() => database.drop());

  it('refuses to start with exit code 78 and a message naming every bad variable', async () => {
    const service = spawnServiceMain(MAIN, { DB_PORT: 'five', NODE_ENV: 'staging', CREDENTIAL_KEY: 'short' });
    const exit = await service.exited;
    expect(exit.code).toBe(78);
    for (const variable of ['DB_PORT', 'NODE_ENV', 'CREDENTIAL_KEY']) expect(service.output()).toContain(variable);
  });

  it('in production logs JSON from its first line, exits non-zero naming DB_HOST and DB_PORT when no database answers, and starts no embedded one', async () => {
    const closedPort = await freePort();
    const service = spawnServiceMain(MAIN, {
      NODE_ENV: 'production',
      COORDINATION_BACKEND: defaultTestBackend(),
      DB_HOST: '127.0.0.1',
      DB_PORT: String(closedPort),
      CREDENTIAL_KEY: randomBytes(32).toString('hex'),
      ACCOUNT_JWT_SECRET: randomBytes(32).toString('hex'),
      ACCOUNT_JWT_ISSUER: 'https://accounts.example',
      ACCOUNT_JWT_AUDIENCE: 'open-platform',
      INTERNAL_API_TOKEN: randomBytes(24).toString('hex'),
      PORT: String(await freePort()),
    });
    const exit = await service.exited;
    expect(exit.code).not.toBe(0);
    expect(exit.code).not.toBeNull();
    expect(service.output()).toContain(`no PostgreSQL answers at DB_HOST=127.0.0.1 DB_PORT=${closedPort}`);
    expect(service.output()).toContain('production never starts an embedded PostgreSQL');
    expect(await acceptsConnections(closedPort)).toBe(false);
    // Logged before the app exists (the coordination backend): the app's JSON, never Nest's coloured text.
    expect(JSON.parse(service.output().split('\n')[0])).toMatchObject({ level: 30, name: 'voucher-api' });
  }, 30_000);

  it('in production with sealed transport on, refuses to start without its own keys or with the development key', async () => {
    const production = {
      NODE_ENV: 'production',
      COORDINATION_BACKEND: 'redis',
      SEALED_TRANSPORT: 'required',
      ACCOUNT_JWT_SECRET: 'p'.repeat(40),
      ACCOUNT_JWT_ISSUER: 'https://accounts.example',
      ACCOUNT_JWT_AUDIENCE: 'open-platform',
      CREDENTIAL_KEY: 'ab'.repeat(32),
      INTERNAL_API_TOKEN: 'i'.repeat(40),
    };
    // Both starts at once: each compiles main.ts, which on a busy machine takes a good part of the timeout.
    const missing = spawnServiceMain(MAIN, production);
    const development = spawnServiceMain(MAIN, {
      ...production,
      SEALED_KEYS: JSON.stringify([{ kid: 'prod', jwk: DEV_SEALING_KEY.jwk }]),
    });
    const [missingExit, developmentExit] = await Promise.all([missing.exited, development.exited]);
    expect(missingExit.code).toBe(78);
    expect(missing.output()).toContain('SEALED_KEYS: required when NODE_ENV=production');
    expect(developmentExit.code).toBe(78);
    expect(development.output()).toContain('SEALED_KEYS: the development key is refused');
  }, 90_000);

  it('serves readiness, then on SIGTERM shuts down gracefully within 10 s, never cut off by the shutdown timeout', async () => {
    const service = await startServiceProcess(MAIN, testEnv(database.name, testRedisPrefix(), { LOG_LEVEL: 'warn' }));
    const started = Date.now();
    const exit = await service.stop('SIGTERM');
    expect(Date.now() - started).toBeLessThan(10_000);
    // Nest re-raises the signal once every module has closed: death by SIGTERM after a clean close, or code 0.
    expect(exit.signal === 'SIGTERM' || exit.code === 0).toBe(true);
    expect(service.output()).not.toMatch(/exceeded|ERROR/);
  });

  it('closes the connection of a request in flight at SIGTERM once it is answered rather than 6 s later, so the drain ends with the last answer', async () => {
    const service = await startServiceProcess(MAIN, testEnv(database.name, testRedisPrefix(), { LOG_LEVEL: 'warn' }));
    const socket = createConnection({ host: '127.0.0.1', port: service.port });
    await once(socket, 'connect');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const closedAt = once(socket, 'close').then(() => Date.now());
    // A keep-alive request whose body is still on its way when the signal comes: the server holds it.
    const body = JSON.stringify({ credential: { type: 'redeem_code', value: 'ABC234' } });
    socket.write(
      'POST /api/v1/open-platform/vouchers/verify HTTP/1.1\r\nHost: voucher-api\r\nConnection: keep-alive\r\n' +
        `Authorization: Bearer sop_unknown\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n` +
        body.slice(0, 10),
    );
    const exit = service.stop('SIGTERM');
    // The rest of the body once the server has closed its port: the answer then comes after the server's close.
    await waitUntil(async () => !(await acceptsConnections(service.port)), 'the port closed by the shutdown', 10_000);
    socket.write(body.slice(10));
    await waitUntil(() => received.includes('\r\n\r\n'), 'the answer to the request in flight', 10_000);
    const answeredAt = Date.now();
    expect(received).toMatch(/^HTTP\/1\.1 401 /);
    // Node would keep the connection for its keep-alive timeout and a second (6 s), and the close would wait for it.
    expect((await closedAt) - answeredAt).toBeLessThan(2500);
    const ended = await exit;
    expect(ended.signal === 'SIGTERM' || ended.code === 0).toBe(true);
    expect(service.output()).not.toMatch(/exceeded|ERROR/);
  });
});
