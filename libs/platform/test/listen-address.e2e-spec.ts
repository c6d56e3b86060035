import { ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { canCreateNetworkNamespaces, connectsFrom, linkedNamespaces, LinkedNamespaces } from '@app/testing';

/**
 * Which networks an app serves, seen from another machine: a second network namespace joined to the
 * app's by a veth pair (root on Linux with `ip`; skipped otherwise). The app is the services' bootstrap
 * (runHttpApp) around one route.
 */
const REPO_ROOT = resolve(__dirname, '../../..');
const FIXTURE = resolve(__dirname, 'fixtures/listening-app.main.ts');

/** Starts the app in the app's namespace and resolves once it says where it listens. */
function startApp(
  namespace: string,
  port: number,
  env: Record<string, string>,
): Promise<ChildProcess & { output: () => string }> {
  const child = spawn(
    'ip',
    [
      'netns',
      'exec',
      namespace,
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

(canCreateNetworkNamespaces() ? describe : describe.skip)(
  'where an app listens, seen from another machine (needs root and ip netns)',
  () => {
    const started: ChildProcess[] = [];
    let network: LinkedNamespaces;

    beforeAll(() => {
      network = linkedNamespaces(`op-listen-${process.pid % 100_000}`, process.pid % 100_000);
    });

    afterAll(async () => {
      await Promise.all(started.map(stopApp));
      network?.remove();
    });

    it('serves only loopback in development unless HOST says otherwise, and every interface in production (defect: npm start served every network)', async () => {
      const apps = await Promise.all([
        startApp(network.name, 3001, { NODE_ENV: 'development' }),
        startApp(network.name, 3002, { NODE_ENV: 'development', HOST: '0.0.0.0' }),
        startApp(network.name, 3003, { NODE_ENV: 'production', COORDINATION_BACKEND: 'postgres' }),
      ]);
      started.push(...apps);
      const ports = [3001, 3002, 3003];
      expect(ports.map((port) => connectsFrom(network.name, '127.0.0.1', port))).toEqual([true, true, true]);
      expect(ports.map((port) => connectsFrom(network.peer, network.address, port))).toEqual([false, true, true]);
      expect(apps[0].output()).toContain('"msg":"listening on 127.0.0.1, port 3001"');
    }, 90_000);
  },
);
