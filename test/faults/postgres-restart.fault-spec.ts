import { TestPostgres } from './postgres-server';
import type * as Harness from './fault-harness';

const OUTAGE_MS = 5_000;

/**
 * In the PostgreSQL-only mode the database is also the queue: a restart takes the outbox, the
 * queue and the wake-ups down together. Every message that was answered 2xx must still reach the
 * webhook once the server is back, through the queue or the outbox sweeper.
 */
describe('fault 6: PostgreSQL restarts in the PostgreSQL-only mode while users keep sending messages', () => {
  let postgres: TestPostgres;
  let harness: typeof Harness;
  let stack: Harness.DeliveryStack;
  let bot: Harness.HookBot;
  const received = new Map<string, number>();

  beforeAll(async () => {
    postgres = await TestPostgres.create();
    // The test helpers and the apps they start take the database address from the environment.
    Object.assign(process.env, postgres.env);
    harness = await import('./fault-harness');
    const mode = { COORDINATION_BACKEND: 'postgres', REDIS_URL: 'redis://127.0.0.1:1' };
    stack = await harness.startDeliveryStack(
      {
        ...mode,
        DELIVERY_RETRY_DELAYS_MS: '200,200,200,200',
        DELIVERY_SWEEP_INTERVAL_MS: '500',
        DELIVERY_SWEEP_GRACE_MS: '2000',
      },
      mode,
    );
    bot = await harness.hookBot(stack, 'restart', 'user-restart');
    stack.onRequest((tag, req) => {
      if (tag !== 'restart') return;
      const id = req.headers['webhook-id'] as string;
      received.set(id, (received.get(id) ?? 0) + 1);
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.close().catch(() => undefined);
    await postgres?.destroy();
  });

  it('delivers the Update of every message that got a 2xx, none lost across the restart, and answers 503 meanwhile', async () => {
    const { say, sleep, waitUntil, report } = harness;
    let sending = true;
    let sent = 0;
    let accepted = 0;
    const statuses = new Map<number, number>();
    const sender = (async () => {
      while (sending) {
        sent++;
        const status = await say(stack, bot, `restart-${sent}`).catch(() => 0);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (status === 201) accepted++;
        await sleep(50);
      }
    })();
    try {
      await sleep(1000);
      await postgres.stop();
      await sleep(OUTAGE_MS);
    } finally {
      // Restored whatever happened above.
      await postgres.start();
    }
    // The app is back once messages are accepted again.
    const acceptedAtRestart = accepted;
    await waitUntil(
      () => accepted >= acceptedAtRestart + 10,
      60_000,
      () => `${accepted - acceptedAtRestart} accepted since the restart`,
    );
    sending = false;
    await sender;

    const { DataSource } = await import('typeorm');
    const db = stack.ctx.app.get(DataSource);
    const updateIds: string[] = (await db.query(`SELECT update_id FROM updates WHERE bot_id = $1`, [bot.botId])).map(
      (row: { update_id: string }) => row.update_id,
    );
    await waitUntil(
      () => updateIds.every((id) => received.has(id)),
      60_000,
      () => `${received.size} of ${updateIds.length}`,
    );
    const requests = [...received.values()].reduce((sum, n) => sum + n, 0);
    report('postgres restart (PostgreSQL-only mode)', {
      sent,
      answered_2xx: accepted,
      statuses: JSON.stringify(Object.fromEntries(statuses)),
      updates_written: updateIds.length,
      received: received.size,
      lost: updateIds.filter((id) => !received.has(id)).length,
      duplicated: requests - received.size,
    });
    expect(accepted).toBeGreaterThan(0);
    // While the database is away a message is refused as retryable (503 with Retry-After), never a 500.
    expect([...statuses.keys()].filter((status) => status !== 201 && status !== 503)).toEqual([]);
    expect(updateIds.length).toBeGreaterThanOrEqual(accepted);
    expect(updateIds.filter((id) => !received.has(id))).toEqual([]);
  }, 180_000);
});
