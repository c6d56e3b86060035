import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export const PG = {
  host: process.env.DB_HOST ?? '127.0.0.1',
  port: Number(process.env.DB_PORT ?? 5432),
  user: process.env.DB_USER ?? 'postgres',
  password: process.env.DB_PASSWORD ?? '',
};

/**
 * Names a run's databases apart from any other run's: on a shared machine two runs with the same names
 * would drop each other's databases mid-run. The apps and baselines get the names through DB_NAME.
 */
const RUN = randomBytes(3).toString('hex');

/** The bench's own databases; each run creates them and drops them at the end. */
export const BENCH_DATABASES = {
  voucher: `voucher_bench_${RUN}`,
  bot: `bot_bench_${RUN}`,
  baseline: `baseline_bench_${RUN}`,
} as const;

export async function connect(database: string): Promise<Client> {
  const client = new Client({ ...PG, database });
  await client.connect();
  return client;
}

export async function withClient<T>(database: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = await connect(database);
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function recreateDatabase(name: string): Promise<void> {
  await withClient('postgres', async (admin) => {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
  });
}

export async function dropDatabase(name: string): Promise<void> {
  await withClient('postgres', (admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}
