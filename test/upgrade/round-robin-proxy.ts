import { Agent, createServer, IncomingMessage, request, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitUntil } from '@app/testing';

/** A replica the proxy can route to: its name (sent back in REPLICA_HEADER) and where it listens. */
export interface Upstream {
  name: string;
  url: string;
}

/** Every answer through the proxy names the replica that gave it. */
export const REPLICA_HEADER = 'x-upgrade-replica';

/** As a Service's readiness probe, a little more often than the kit's (every 2 s). */
const PROBE_EVERY_MS = 250;
const PROBE_TIMEOUT_MS = 1000;

interface Backend {
  upstream: Upstream;
  /** The last readiness probe answered 200. */
  ready: boolean;
  /** Taken out of rotation, as a terminating pod is taken out of its Service's endpoints. */
  leaving: boolean;
  /** Requests routed to it whose bytes have not all been handed to the connection yet. */
  unsent: number;
  probe: NodeJS.Timeout;
}

/**
 * What a Kubernetes Service does for the upgrade test, in node:http: new requests go round robin to the
 * replicas whose readiness probe passes; a replica whose probe fails gets none until it passes again,
 * and one that is leaving gets none at all. It never retries: an upstream that fails a request makes a
 * 502, and no ready replica makes a 503, both counted as answers of 5xx by the traffic.
 */
export class RoundRobinProxy {
  private readonly backends: Backend[] = [];
  /**
   * Keeps idle connections as a Service's clients do: no longer than the replica's `Keep-Alive:
   * timeout=` hint allows. Node's agent applies that hint (less a second) only under a timeout of its
   * own; without one an idle connection was reused just as the replica closed it (ECONNRESET, a 502
   * that no rollout caused).
   */
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 256, timeout: 60_000 });
  private turn = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<RoundRobinProxy> {
    let proxy: RoundRobinProxy | undefined;
    const server = createServer((req, res) => proxy?.forward(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new RoundRobinProxy(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return proxy;
  }

  /** Starts probing the replica; it gets requests once a probe passes (see `routing`). */
  add(upstream: Upstream): void {
    const backend: Backend = { upstream, ready: false, leaving: false, unsent: 0, probe: undefined as never };
    let probing = false;
    const probe = async () => {
      if (probing) return;
      probing = true;
      try {
        const res = await fetch(`${upstream.url}/health/ready`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
        await res.arrayBuffer();
        backend.ready = res.status === 200;
      } catch {
        backend.ready = false;
      } finally {
        probing = false;
      }
    };
    backend.probe = setInterval(() => void probe(), PROBE_EVERY_MS);
    void probe();
    this.backends.push(backend);
  }

  /** Resolves once the replica is in rotation (its readiness probe passed). */
  async routing(name: string, timeoutMs = 30_000): Promise<void> {
    const backend = this.backend(name);
    await waitUntil(() => backend.ready && !backend.leaving, `${name} in rotation`, timeoutMs);
  }

  /**
   * Takes the replica out of rotation and resolves once every request already routed to it has been
   * sent, so that a SIGTERM that follows finds them in flight rather than racing a request on its way.
   */
  async stopRouting(name: string): Promise<void> {
    const backend = this.backend(name);
    backend.leaving = true;
    await waitUntil(() => backend.unsent === 0, `requests routed to ${name} sent`, 10_000);
  }

  /** Stops probing a replica that is gone. */
  forget(name: string): void {
    const backend = this.backend(name);
    clearInterval(backend.probe);
    this.backends.splice(this.backends.indexOf(backend), 1);
  }

  async close(): Promise<void> {
    for (const backend of this.backends.splice(0)) clearInterval(backend.probe);
    this.agent.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private backend(name: string): Backend {
    const backend = this.backends.find((candidate) => candidate.upstream.name === name);
    if (!backend) throw new Error(`the proxy knows no replica ${name}`);
    return backend;
  }

  private pick(): Backend | undefined {
    const routable = this.backends.filter((backend) => backend.ready && !backend.leaving);
    if (routable.length === 0) return undefined;
    this.turn = (this.turn + 1) % routable.length;
    return routable[this.turn];
  }

  private forward(req: IncomingMessage, res: ServerResponse): void {
    const backend = this.pick();
    if (!backend) {
      req.resume();
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"proxy":"no ready replica"}');
      return;
    }
    const { name, url } = backend.upstream;
    const target = new URL(url);
    backend.unsent += 1;
    let sent = false;
    const markSent = () => {
      if (!sent) backend.unsent -= 1;
      sent = true;
    };
    const upstream = request({
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: req.headers,
      agent: this.agent,
    });
    upstream.once('finish', markSent);
    // A client that gives up (the poller, stopped mid-poll) ends its request upstream too.
    res.once('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    upstream.once('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, { ...answer.headers, [REPLICA_HEADER]: name });
      answer.pipe(res);
    });
    upstream.once('error', (error) => {
      markSent();
      if (res.headersSent) return void res.destroy();
      res
        .writeHead(502, { 'content-type': 'application/json', [REPLICA_HEADER]: name })
        .end(JSON.stringify({ proxy: `upstream failed: ${error.message}` }));
    });
    req.pipe(upstream);
  }
}
