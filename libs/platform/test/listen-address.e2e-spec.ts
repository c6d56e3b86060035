import { ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * Which networks an app serves, seen from another machine: a second network namespace joined to the
 * app's by a veth pair (root on Linux with `ip`; skipped otherwise). The app is the services' bootstrap
 * (runHttpApp) around one route.
 */
const REPO_ROOT = resolve(__dirname, '../../..');
const FIXTURE = resolve(__dirname, 'fixtures/listening-app.main.ts');
const namespaces =
  process.platform === 'linux' &&
  process.getuid?.() === 0 &&
  spawnSync('ip', ['netns', 'list'], { stdio: 'ignore' }).status === 0;

const tag = process.pid % 100_000;
const APP_NS = `op-listen-${tag}`;
const PEER_NS = `op-listen-${tag}-peer`;
const APP_ADDRESS = '10.199.0.1';

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: 'pipe' });
}

/** Whether a TCP connection from `namespace` to host:port is accepted (the answer of a process run there). */
function connects(namespace: string, host: string, port: number): boolean {
  const probe = `const s = require('net').connect(${port}, '${host}');
    s.once('connect', () => process.exit(0)); s.once('error', () => process.exit(1));
    s.setTimeout(3000, () => process.exit(2));`;
  const { status } = spawnSync('ip', ['netns', 'exec', namespace, process.execPath, '-e', probe]);
  if (status === 2) throw new Error(`no answer at all from ${host}:${port} in ${namespace}`);
  return status === 0;
}

/** Starts the app in the app's namespace and resolves once it says where it listens. */
function startApp(port: number, env: Record<string, string>): Promise<ChildProcess & { output: () => string }> {
  const child = spawn(
    'ip',
    [
      'netns',
      'exec',
      APP_NS,
      process.execPath,
      '-r',
      'ts-node/register/transpile-only',
      '-r',
      'tsconfig-paths/register',
      FIXTURE,
    ],
    {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        TS_NODE_TRANSPILE_ONLY: 'true',
        LOG_LEVEL: 'info',
        WARM_UP: 'false',
        PORT: String(port),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  return new Promise((resolveStart, reject) => {
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('"listening on')) resolveStart(Object.assign(child, { output: () => output }));
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.once('exit', (code) => reject(new Error(`the app exited with ${code}:\n${output}`)));
  });
}

async function stopApp(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
  child.kill('SIGTERM');
  await exited;
}

(namespaces ? describe : describe.skip)(
  'where an app listens, seen from another machine (needs root and ip netns)',
  () => {
    const started: ChildProcess[] = [];

    beforeAll(() => {
      ip('netns', 'add', APP_NS);
      ip('netns', 'add', PEER_NS);
      ip('link', 'add', `opl${tag}a`, 'type', 'veth', 'peer', 'name', `opl${tag}b`);
      ip('link', 'set', `opl${tag}a`, 'netns', APP_NS);
      ip('link', 'set', `opl${tag}b`, 'netns', PEER_NS);
      ip('-n', APP_NS, 'addr', 'add', `${APP_ADDRESS}/30`, 'dev', `opl${tag}a`);
      ip('-n', PEER_NS, 'addr', 'add', '10.199.0.2/30', 'dev', `opl${tag}b`);
      for (const [namespace, link] of [
        [APP_NS, `opl${tag}a`],
        [PEER_NS, `opl${tag}b`],
      ]) {
        ip('-n', namespace, 'link', 'set', 'lo', 'up');
        ip('-n', namespace, 'link', 'set', link, 'up');
      }
    });

    afterAll(async () => {
      await Promise.all(started.map(stopApp));
      // Deleting a namespace deletes the end of the veth pair inside it, and with it the other end.
      for (const namespace of [APP_NS, PEER_NS]) spawnSync('ip', ['netns', 'delete', namespace]);
    });

    it('serves only loopback in development unless HOST says otherwise, and every interface in production (defect: npm start served every network)', async () => {
      const apps = await Promise.all([
        startApp(3001, { NODE_ENV: 'development' }),
        startApp(3002, { NODE_ENV: 'development', HOST: '0.0.0.0' }),
        startApp(3003, { NODE_ENV: 'production', COORDINATION_BACKEND: 'postgres' }),
      ]);
      started.push(...apps);
      expect([3001, 3002, 3003].map((port) => connects(APP_NS, '127.0.0.1', port))).toEqual([true, true, true]);
      expect([3001, 3002, 3003].map((port) => connects(PEER_NS, APP_ADDRESS, port))).toEqual([false, true, true]);
      expect(apps[0].output()).toContain('"msg":"listening on 127.0.0.1, port 3001"');
    }, 90_000);
  },
);
