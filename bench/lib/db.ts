import { Client } from 'pg';

export const PG = {
  host: process.env.DB_HOST ?? '127.0.0.1',
  port: Number(process.env.DB_PORT ?? 5432),
  user: process.env.DB_USER ?? 'postgres',
  password: process.env.DB_PASSWORD ?? '',
};

/** The bench's own databases; each run drops and recreates them, and drops them at the end. */
export const BENCH_DATABASES = {
  voucher: 'voucher_bench',
  bot: 'bot_bench',
  baseline: 'baseline_bench',
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
