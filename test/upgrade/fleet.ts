import { join } from 'node:path';
import { acceptsConnections, ProcessExit, ServiceProcess, startServiceProcess, waitUntil } from '@app/testing';
import { AppBuild, AppName, run } from './previous-release';
import type { RoundRobinProxy } from './round-robin-proxy';

export interface Replica {
  name: string;
  build: AppBuild;
  url: string;
  process: ServiceProcess;
}

/**
 * A request sent to a replica just before its SIGTERM, whose body is still on its way: `sent` once its
 * headers and a first byte are out, `finish` sends the rest and resolves with the answer, recorded.
 */
export interface InFlightRequest {
  sent: Promise<void>;
  finish(): Promise<void>;
}

/** How a replica ended: by its SIGTERM handling, or otherwise (cut off, crashed). */
export interface Retirement {
  name: string;
  exit: ProcessExit;
  graceful: boolean;
}

const START_TIMEOUT_MS = 90_000;

const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

function distOf(build: AppBuild): string {
  return join(build.root, 'dist', 'apps', build.app, 'apps', build.app, 'src');
}

/**
 * The replicas of the three apps, each app behind its proxy (bot-dispatcher has none: it serves no
 * traffic), started and stopped as a rolling update does: a new replica first, ready, then an old one
 * out of rotation and stopped with SIGTERM.
 */
export class Fleet {
  readonly replicas: Replica[] = [];
  readonly retirements: Retirement[] = [];
  /** Every replica ever started, retired ones too, for a failure's report. */
  private readonly everStarted: Replica[] = [];
  private started = 0;

  constructor(
    private readonly env: Record<AppName, NodeJS.ProcessEnv>,
    private readonly proxies: Partial<Record<AppName, RoundRobinProxy>>,
    private readonly log: (line: string) => void,
    private readonly inFlightAtShutdown: Partial<Record<AppName, (replica: Replica) => InFlightRequest>> = {},
  ) {}

  /**
   * One more replica of `build`, in rotation once its readiness passes; it must report the release it was
   * built from on /health/live.
   */
  async start(build: AppBuild): Promise<Replica> {
    const name = `${build.app} ${build.label} #${++this.started}`;
    const startedAt = Date.now();
    const service = await startServiceProcess(
      { builtMain: join(distOf(build), 'main.js'), cwd: build.root },
      this.env[build.app],
      START_TIMEOUT_MS,
    );
    const replica: Replica = { name, build, url: `http://127.0.0.1:${service.port}`, process: service };
    this.replicas.push(replica);
    this.everStarted.push(replica);
    const live = (await (await fetch(`${replica.url}/health/live`)).json()) as Record<string, unknown>;
    if (live.version !== build.release.version || live.commit !== build.release.commit) {
      throw new Error(`${name} reports ${JSON.stringify(live)}, not the release it was built from`);
    }
    const proxy = this.proxies[build.app];
    if (proxy) {
      proxy.add({ name, url: replica.url });
      await proxy.routing(name);
    }
    this.log(`${name} ready${proxy ? ' and in rotation' : ''} in ${seconds(startedAt)}`);
    return replica;
  }

  /**
   * Out of rotation, then SIGTERM, as Kubernetes does with a pod it replaces. Requests already routed to
   * it are in flight when the signal comes and must be answered; so must one more (inFlightAtShutdown),
   * whose body arrives only once the server has closed its port, so that its handler runs while the
   * process shuts down. Graceful: the process ended through its shutdown hooks (Nest raises the signal
   * again once they are done), not by the shutdown timeout.
   */
  async retire(replica: Replica): Promise<Retirement> {
    const proxy = this.proxies[replica.build.app];
    const startedAt = Date.now();
    await proxy?.stopRouting(replica.name);
    const inFlight = this.inFlightAtShutdown[replica.build.app]?.(replica);
    await inFlight?.sent;
    const exited = replica.process.stop('SIGTERM');
    if (inFlight) {
      await waitUntil(
        async () => !(await acceptsConnections(replica.process.port)),
        `${replica.name} closing its port`,
        30_000,
      );
      await inFlight.finish();
    }
    const exit = await exited;
    proxy?.forget(replica.name);
    this.replicas.splice(this.replicas.indexOf(replica), 1);
    const graceful =
      (exit.signal === 'SIGTERM' || exit.code === 0) &&
      !replica.process.output().includes('graceful shutdown exceeded');
    const retirement = { name: replica.name, exit, graceful };
    this.retirements.push(retirement);
    this.log(
      `${replica.name} stopped ${graceful ? 'gracefully' : `NOT gracefully (${JSON.stringify(exit)})`} in ${seconds(startedAt)}`,
    );
    return retirement;
  }

  /** Replaces every replica of the app that runs another build, one at a time, each new one ready first. */
  async roll(app: AppName, to: AppBuild): Promise<void> {
    for (const replica of this.replicas.filter((candidate) => candidate.build.app === app && candidate.build !== to)) {
      await this.start(to);
      await this.retire(replica);
    }
  }

  of(app: AppName): Replica[] {
    return this.replicas.filter((replica) => replica.build.app === app);
  }

  /** The end of every replica's output, for a failure's report. */
  outputs(): string {
    return this.everStarted
      .map((replica) => `--- ${replica.name}\n${replica.process.output().slice(-3000)}`)
      .join('\n');
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.replicas.splice(0).map((replica) => replica.process.stop('SIGKILL')));
  }
}

/** Applies the build's migrations (its migration CLI, as the migration Job runs it); returns its output. */
export function migrate(build: AppBuild, env: NodeJS.ProcessEnv): Promise<string> {
  return run(process.execPath, [join(distOf(build), 'database', 'migrate.js'), 'run'], build.root, env);
}
