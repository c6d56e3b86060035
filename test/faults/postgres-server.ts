import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@app/testing';
import { LocalPostgres, startEmbeddedPostgres } from '../../scripts/local-postgres';

/**
 * A PostgreSQL server of the test's own (the embedded one `npm start` uses), on a free port and a
 * temporary data folder: a scenario may stop and start it without touching the database other tests
 * use. stop() and start() are idempotent, so a finally block can always restore it.
 */
export class TestPostgres {
  private server?: LocalPostgres;
  /** The superuser's password, generated at the first start and kept beside the data folder. */
  private password = '';

  private constructor(
    readonly port: number,
    private readonly folder: string,
  ) {}

  static async create(): Promise<TestPostgres> {
    const folder = mkdtempSync(join(tmpdir(), 'fault-postgres-'));
    // As root the server runs as a `postgres` user, which must be able to reach its data folder.
    chmodSync(folder, 0o755);
    const postgres = new TestPostgres(await freePort(), folder);
    await postgres.start();
    return postgres;
  }

  /** The environment that points the test helpers and the apps at this server. */
  get env(): Record<string, string> {
    return { DB_HOST: '127.0.0.1', DB_PORT: String(this.port), DB_USER: 'postgres', DB_PASSWORD: this.password };
  }

  async start(): Promise<void> {
    this.server ??= await startEmbeddedPostgres({
      host: '127.0.0.1',
      port: this.port,
      user: 'postgres',
      dataDir: join(this.folder, 'data'),
      runtimeDir: this.folder,
    });
    this.password = this.server.password;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    await server?.stop();
  }

  /** Stops the server and removes its data folder. */
  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.folder, { recursive: true, force: true });
  }
}
