/**
 * `npm run test:images`: the three container images, built from docker/*.Dockerfile with podman and run
 * the way the Kubernetes manifests run them, against this machine's PostgreSQL and Redis (databases,
 * roles and a Redis key prefix of the test's own, removed at the end).
 *
 * - The databases and roles come from k8s/components/database-bootstrap/bootstrap.sql; each image's migration CLI migrates
 *   as the migrator with the database settings alone and NODE_ENV=production; the apps connect as the
 *   application role, which may not create anything.
 * - bot-dispatcher's schema wait (bot-api's image, `migrate.js wait`) holds while bot is unmigrated.
 * - Each container runs as the manifests' user, with a read-only root filesystem where they say so, no
 *   capabilities and no privilege escalation; the test checks both from inside the container, and the
 *   Node.js release line the image runs (a supported long-term-support one, docs/deployment.md#images).
 * - The README quickstarts run against the containers; then the three restart in the PostgreSQL-only mode
 *   (queues, limits and wake-ups in each service's database, as the application role) and the bot
 *   quickstart runs again.
 */
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { parse } from 'yaml';
import { freePort, readinessInfo } from '@app/testing';
import { devWebhookCertificate } from '../dev-webhook-certificate';
import {
  BOT_QUICKSTART,
  checkBotQuickstart,
  checkVoucherQuickstart,
  quickstartScript,
  runQuickstart,
  VOUCHER_QUICKSTART,
} from '../quickstart';
import { buildImage, LOCAL_NODE_BASE, podman, podmanResult, REPO_ROOT } from './podman';

const APPS = ['voucher-api', 'bot-api', 'bot-dispatcher'] as const;
type App = (typeof APPS)[number];

const run = randomBytes(4).toString('hex');
/** Each app's version (its package.json, which `nx release` bumps) and this checkout's commit, read once. */
const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
const release = (app: App) => ({
  version: (JSON.parse(readFileSync(join(REPO_ROOT, 'apps', app, 'package.json'), 'utf8')) as { version: string })
    .version,
  commit,
});
// Tagged with the version, as a release tags them; the run's suffix keeps parallel runs apart.
const image = (app: App) => `localhost/open-platform/${app}:${release(app).version}-test-${run}`;
const container = (app: App) => `open-platform-images-${run}-${app}`;
const hex = () => randomBytes(32).toString('hex');

/** One database of the test and its two roles, as the bootstrap Job makes them. */
const databases = {
  voucher: {
    name: `images_${run}_voucher`,
    migrator: `images_${run}_voucher_migrator`,
    app: `images_${run}_voucher_app`,
  },
  bot: { name: `images_${run}_bot`, migrator: `images_${run}_bot_migrator`, app: `images_${run}_bot_app` },
};
const PASSWORD = hex(); // the local server trusts 127.0.0.1; the roles get one all the same
const REDIS_KEY_PREFIX = `images-${run}:`;

/** What the base Deployment says about the process: its user and whether the root filesystem is read-only. */
function manifestSecurity(app: App): { user: string; readOnlyRoot: boolean } {
  const deployment = parse(readFileSync(join(REPO_ROOT, `k8s/${app}/base/deployment.yaml`), 'utf8'));
  const pod = deployment.spec.template.spec;
  const main = pod.containers.find((c: { name: string }) => c.name === app);
  return {
    user: `${pod.securityContext.runAsUser}:${pod.securityContext.runAsGroup}`,
    readOnlyRoot: main.securityContext?.readOnlyRootFilesystem === true,
  };
}

function psql(database: string, args: string[], user = 'postgres'): string {
  return execFileSync(
    'psql',
    ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-U', user, '-d', database, ...args],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
}

function runArgs(app: App, env: Record<string, string>, extra: string[] = []): string[] {
  const { user, readOnlyRoot } = manifestSecurity(app);
  return [
    '--network=host',
    `--user=${user}`,
    ...(readOnlyRoot ? ['--read-only'] : []),
    '--cap-drop=ALL',
    '--security-opt=no-new-privileges',
    ...extra,
    ...Object.entries(env).map(([key, value]) => `--env=${key}=${value}`),
  ];
}

/** The migration CLI of an image, as the migration Job and the schema wait run it: database settings only. */
function migrationCli(app: 'voucher-api' | 'bot-api', database: { name: string }, user: string, command: string[]) {
  const env = {
    NODE_ENV: 'production',
    DB_HOST: '127.0.0.1',
    DB_USER: user,
    DB_PASSWORD: PASSWORD,
    DB_NAME: database.name,
  };
  return podmanResult([
    'run',
    '--rm',
    ...runArgs(app, env),
    image(app),
    'node',
    `dist/apps/${app}/src/database/migrate.js`,
    ...command,
  ]);
}

async function waitUntilReady(app: App, url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const state = await podman(['inspect', '--format={{.State.Status}}', container(app)]);
    if (state !== 'running') throw new Error(`${app} is ${state}:\n${await podman(['logs', container(app)])}`);
    const ready = await fetch(`${url}/health/ready`).then(
      (res) => res.ok,
      () => false,
    );
    if (ready) return;
    if (Date.now() > deadline)
      throw new Error(`${app} not ready within 60 s:\n${await podman(['logs', container(app)])}`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 250));
  }
}

describe('the container images, built and run as the manifests run them', () => {
  const workDir = mkdtempSync(join(tmpdir(), 'images-'));
  const ports = {} as Record<App, number>;
  const urls = {} as Record<App, string>;
  const sizes = {} as Record<App, number>;
  const migrations: Record<string, { code: number; output: string }> = {};
  const jwt = {
    ACCOUNT_JWT_SECRET: hex(),
    ACCOUNT_JWT_ISSUER: 'https://accounts.images.test',
    ACCOUNT_JWT_AUDIENCE: 'open-platform',
  };
  let certificate: ReturnType<typeof devWebhookCertificate>;

  // The same secrets on every start: the PostgreSQL-only pass reads rows the Redis pass encrypted and signed.
  const secrets = {
    internalToken: hex(),
    webhookKey: hex(),
    credentialKey: hex(),
    botTokenKey: hex(),
    fileSigningKey: hex(),
  };

  /** The three containers as the manifests run them, on the given coordination backend. */
  async function startApps(backend: 'redis' | 'postgres'): Promise<void> {
    const shared = {
      DB_HOST: '127.0.0.1',
      DB_PASSWORD: PASSWORD,
      DB_AUTO_CREATE: 'false',
      MIGRATIONS_RUN: 'false',
      COORDINATION_BACKEND: backend,
      ...(backend === 'redis' ? { REDIS_URL: 'redis://127.0.0.1:6379', REDIS_KEY_PREFIX } : {}),
      LOG_LEVEL: 'warn',
    };
    const start = (app: App, env: Record<string, string>, extra: string[] = []) =>
      podman([
        'run',
        '--detach',
        `--name=${container(app)}`,
        ...runArgs(app, { ...shared, ...env }, extra),
        image(app),
      ]);
    // voucher-api as in production; bot-api and bot-dispatcher in development, since the quickstart's
    // webhook receiver listens on this machine and production refuses private webhook addresses.
    await start('voucher-api', {
      NODE_ENV: 'production',
      // Its first lines (the coordination mode, Nest's boot) are the ones the JSON check below reads.
      LOG_LEVEL: 'info',
      PORT: String(ports['voucher-api']),
      DB_NAME: databases.voucher.name,
      DB_USER: databases.voucher.app,
      ...jwt,
      CREDENTIAL_KEY: secrets.credentialKey,
      INTERNAL_API_TOKEN: secrets.internalToken,
      BOT_API_URL: urls['bot-api'],
    });
    await start(
      'bot-api',
      {
        NODE_ENV: 'development',
        PORT: String(ports['bot-api']),
        DB_NAME: databases.bot.name,
        DB_USER: databases.bot.app,
        ...jwt,
        BOT_TOKEN_ENCRYPTION_KEY: secrets.botTokenKey,
        WEBHOOK_SECRET_KEY: secrets.webhookKey,
        INTERNAL_API_TOKEN: secrets.internalToken,
        WEBHOOK_ALLOW_PRIVATE: 'true',
        FILE_STORAGE_DRIVER: 'disk',
        FILE_PUBLIC_BASE_URL: urls['bot-api'],
        FILE_URL_SIGNING_KEY: secrets.fileSigningKey,
      },
      // The disk driver's directory is a volume in a cluster; here a tmpfs owned by the process user.
      ['--mount=type=tmpfs,destination=/var/lib/bot-api/files,chown=true'],
    );
    await start(
      'bot-dispatcher',
      {
        NODE_ENV: 'development',
        PORT: String(ports['bot-dispatcher']),
        DB_NAME: databases.bot.name,
        DB_USER: databases.bot.app,
        WEBHOOK_SECRET_KEY: secrets.webhookKey,
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_CA_FILE: '/etc/webhook-ca/ca.pem',
      },
      [`--volume=${certificate.certFile}:/etc/webhook-ca/ca.pem:ro`],
    );
    for (const app of APPS) await waitUntilReady(app, urls[app]);
  }

  async function stopApps(): Promise<void> {
    for (const app of APPS) await podmanResult(['rm', '--force', '--time=5', container(app)]);
  }

  beforeAll(async () => {
    for (const app of APPS) {
      const started = Date.now();
      await buildImage(
        `docker/${app}.Dockerfile`,
        image(app),
        LOCAL_NODE_BASE,
        join(workDir, `build-${app}.log`),
        release(app),
      );
      sizes[app] = Number(await podman(['image', 'inspect', '--format={{.Size}}', image(app)]));
      console.log(`built ${app} in ${Math.round((Date.now() - started) / 1000)} s`);
    }

    for (const db of Object.values(databases)) {
      psql('postgres', [
        ...['-v', `database=${db.name}`, '-v', `migrator=${db.migrator}`, '-v', `migrator_password=${PASSWORD}`],
        ...['-v', `app=${db.app}`, '-v', `app_password=${PASSWORD}`],
        '-f',
        join(REPO_ROOT, 'k8s/components/database-bootstrap/bootstrap.sql'),
      ]);
    }
    const record = async (name: string, result: Promise<{ code: number; stdout: string; stderr: string }>) => {
      const { code, stdout, stderr } = await result;
      migrations[name] = { code, output: stdout + stderr };
    };
    await record('voucher run', migrationCli('voucher-api', databases.voucher, databases.voucher.migrator, ['run']));
    await record('bot wait before', migrationCli('bot-api', databases.bot, databases.bot.app, ['wait', '1']));
    await record('bot run', migrationCli('bot-api', databases.bot, databases.bot.migrator, ['run']));
    await record('bot wait after', migrationCli('bot-api', databases.bot, databases.bot.app, ['wait', '60']));

    for (const app of APPS) {
      ports[app] = await freePort();
      urls[app] = `http://127.0.0.1:${ports[app]}`;
    }
    certificate = devWebhookCertificate(join(workDir, 'certificate'));
    await startApps('redis');
  }, 25 * 60_000);

  afterAll(async () => {
    await stopApps();
    for (const app of APPS) await podmanResult(['rmi', image(app)]);
    for (const db of Object.values(databases)) {
      psql('postgres', ['-c', `DROP DATABASE IF EXISTS "${db.name}" WITH (FORCE)`]);
      psql('postgres', ['-c', `DROP ROLE IF EXISTS "${db.app}"`, '-c', `DROP ROLE IF EXISTS "${db.migrator}"`]);
    }
    const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true });
    try {
      await redis.connect();
      for await (const keys of redis.scanStream({ match: `${REDIS_KEY_PREFIX}*`, count: 500 })) {
        if ((keys as string[]).length > 0) await redis.del(...(keys as string[]));
      }
    } finally {
      redis.disconnect();
    }
    rmSync(workDir, { recursive: true, force: true });
  }, 120_000);

  it('builds the three images and reports their sizes', () => {
    const lines = APPS.map((app) => `${app}: ${(sizes[app] / 1e6).toFixed(0)} MB`);
    console.log(`image sizes (uncompressed):\n${lines.join('\n')}`);
    for (const app of APPS) expect(sizes[app]).toBeGreaterThan(50e6);
  });

  it('migrates with the database settings alone, as the migrator, in production mode', () => {
    expect(migrations['voucher run']).toMatchObject({
      code: 0,
      output: expect.stringMatching(/applied \d+ migration\(s\)/),
    });
    expect(migrations['bot run']).toMatchObject({
      code: 0,
      output: expect.stringMatching(/applied \d+ migration\(s\)/),
    });
  });

  it("holds bot-dispatcher's schema wait while bot is unmigrated and lets it through once migrated", () => {
    expect(migrations['bot wait before'].code).not.toBe(0);
    expect(migrations['bot wait before'].output).toContain(`${databases.bot.name} is not migrated`);
    expect(migrations['bot wait after']).toMatchObject({ code: 0, output: expect.stringContaining('is up to date') });
  });

  it('gives the application role row rights only: it cannot create a table', () => {
    expect(() => psql(databases.voucher.name, ['-c', 'CREATE TABLE intruder (id int)'], databases.voucher.app)).toThrow(
      /permission denied for schema public/,
    );
  });

  it.each(APPS)("runs %s as the manifests' non-root user with a read-only root filesystem", async (app) => {
    const { user, readOnlyRoot } = manifestSecurity(app);
    expect(readOnlyRoot).toBe(true);
    expect(await podman(['exec', container(app), 'id', '-u'])).toBe(user.split(':')[0]);
    expect(user.split(':')[0]).not.toBe('0');
    const write = await podmanResult([
      'exec',
      container(app),
      'node',
      '-e',
      "require('fs').writeFileSync('/app/probe', 'x')",
    ]);
    expect(write.code).not.toBe(0);
    expect(write.stderr).toContain('EROFS');
    await podman(['exec', container(app), 'node', '-e', "require('fs').writeFileSync('/tmp/probe', 'x')"]);
  });

  it.each(APPS)('runs %s on a supported Node.js long-term-support line (22 or later, even)', async (app) => {
    const [version, lts] = (
      await podman(['exec', container(app), 'node', '-p', "process.versions.node + ' ' + (process.release.lts || '')"])
    ).split(' ');
    const major = Number(version.split('.')[0]);
    expect({ app, major, even: major % 2 === 0, lts: lts !== '' }).toEqual({
      app,
      major: expect.any(Number),
      even: true,
      lts: true,
    });
    expect(major).toBeGreaterThanOrEqual(22);
  });

  it.each(APPS)('labels the %s image with its version and commit, and the container reports both', async (app) => {
    const { version, commit } = release(app);
    const labels = JSON.parse(await podman(['image', 'inspect', '--format={{json .Labels}}', image(app)]));
    expect(labels).toMatchObject({
      'org.opencontainers.image.version': version,
      'org.opencontainers.image.revision': commit,
    });
    const live = (await fetch(`${urls[app]}/health/live`).then((res) => res.json())) as object;
    expect(live).toMatchObject({ status: 'ok', version, commit });
    const metrics = await fetch(`${urls[app]}/metrics`).then((res) => res.text());
    expect(metrics).toContain(`app_build_info{version="${version}",commit="${commit}"} 1`);
  });

  it.each(APPS)('passes the HEALTHCHECK of the %s image', async (app) => {
    expect(await podmanResult(['healthcheck', 'run', container(app)])).toMatchObject({ code: 0 });
  });

  it('logs JSON from the first line of a production container on (defect: the first line was coloured text)', async () => {
    const lines = (await podmanResult(['logs', container('voucher-api')])).stdout.split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(0);
    expect(() => lines.map((line) => JSON.parse(line))).not.toThrow();
    expect(JSON.parse(lines[0])).toMatchObject({ level: 30, context: 'Coordination' });
  });

  it('runs the voucher quickstart against the voucher-api container', async () => {
    const script = quickstartScript(
      VOUCHER_QUICKSTART,
      { 'http://localhost:3001': urls['voucher-api'] },
      join(workDir, 'unused.log'),
    );
    await runQuickstart(script, jwt, checkVoucherQuickstart);
  });

  async function runBotQuickstart(): Promise<void> {
    const receiverLog = join(workDir, `receiver-${Date.now()}.log`);
    const port = String(await freePort());
    const script = quickstartScript(
      BOT_QUICKSTART,
      { 'http://localhost:3002': urls['bot-api'], '8443': port },
      receiverLog,
    );
    await runQuickstart(script, { ...jwt, WEBHOOK_RECEIVER_CERT_DIR: certificate.dir }, (output) =>
      checkBotQuickstart(output, port, receiverLog),
    );
  }

  it('runs the bot quickstart against the bot-api and bot-dispatcher containers, webhook included', runBotQuickstart);

  describe('in the PostgreSQL-only mode, as the same application roles', () => {
    beforeAll(async () => {
      await stopApps();
      await startApps('postgres');
    }, 5 * 60_000);

    it.each(APPS)('reports %s ready on PostgreSQL alone', async (app) => {
      const ready = (await fetch(`${urls[app]}/health/ready`).then((res) => res.json())) as { info: unknown };
      expect(ready.info).toEqual(readinessInfo('postgres'));
    });

    it('runs the bot quickstart: queues, limits and wake-ups in the bot database, webhook included', runBotQuickstart);
  });
});
