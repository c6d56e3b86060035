import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from '@app/testing';
import { embeddedPostgresPlan, ensureLocalPostgres, isLoopback, somethingListens } from './local-postgres';

describe('the embedded PostgreSQL of npm start and the tests', () => {
  it('is never planned in production, for a remote DB_HOST, or where something already answers', async () => {
    const closed = String(await freePort());
    expect(await embeddedPostgresPlan({ NODE_ENV: 'production', DB_PORT: closed })).toMatchObject({
      start: false,
      reason: 'NODE_ENV=production',
    });
    expect(await embeddedPostgresPlan({ DB_HOST: 'db.internal', DB_PORT: closed })).toMatchObject({ start: false });
    expect(await embeddedPostgresPlan({ DB_HOST: '127.0.0.1', DB_PORT: closed })).toMatchObject({ start: true });
    expect(await embeddedPostgresPlan({ DB_HOST: process.env.DB_HOST, DB_PORT: process.env.DB_PORT })).toMatchObject({
      start: false,
    });
    expect(await ensureLocalPostgres({ env: { NODE_ENV: 'production', DB_PORT: closed }, log: () => undefined })).toBe(
      null,
    );
    expect(await somethingListens('127.0.0.1', Number(closed))).toBe(false);
  });

  it('names loopback hosts only', () => {
    expect(['localhost', '127.0.0.1', '127.1.2.3', '::1'].map(isLoopback)).toEqual([true, true, true, true]);
    expect(['10.0.0.5', 'db', '::', '0.0.0.0'].map(isLoopback)).toEqual([false, false, false, false]);
  });

  describe('on a free loopback port', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'local-postgres-'));
      // As root the server runs as the `postgres` user, which must reach the data folder inside.
      chmodSync(dir, 0o755);
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('starts a real server, stops it cleanly, and a second start on the same folder finds its data', async () => {
      const port = await freePort();
      const env = { DB_HOST: '127.0.0.1', DB_PORT: String(port) };
      const dataDir = join(dir, 'postgres');
      const lines: string[] = [];
      const query = async (sql: string) => {
        const client = new Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
        await client.connect();
        try {
          return (await client.query(sql)).rows;
        } finally {
          await client.end();
        }
      };

      const first = await ensureLocalPostgres({ env, dataDir, log: (line) => lines.push(line) });
      try {
        expect(first).not.toBeNull();
        await query('CREATE TABLE kept_between_starts (id int)');
        expect(await ensureLocalPostgres({ env, dataDir, log: (line) => lines.push(line) })).toBeNull();
      } finally {
        await first?.stop();
      }
      expect(await somethingListens('127.0.0.1', port)).toBe(false);

      const second = await ensureLocalPostgres({ env, dataDir, log: (line) => lines.push(line) });
      try {
        expect(await query(`SELECT to_regclass('kept_between_starts') IS NOT NULL AS kept`)).toEqual([{ kept: true }]);
      } finally {
        await second?.stop();
      }
      expect(lines).toEqual([
        expect.stringMatching(new RegExp(`^no PostgreSQL answers at 127.0.0.1:${port}: .*\\(a new cluster\\)$`)),
        `embedded PostgreSQL ready at 127.0.0.1:${port} (its log: ${dataDir}.log)`,
        expect.stringMatching(/\(kept from an earlier start\)$/),
        `embedded PostgreSQL ready at 127.0.0.1:${port} (its log: ${dataDir}.log)`,
      ]);
      expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(true);
    }, 60_000);
  });
});
