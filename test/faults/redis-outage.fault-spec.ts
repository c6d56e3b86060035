import { DataSource } from 'typeorm';
import { DeliveryStack, hookBot, HookBot, report, say, sleep, startDeliveryStack, waitUntil } from './fault-harness';
import { TestRedis } from './redis-server';

const OUTAGE_MS = 10_000;

describe('fault 2: Redis stops for 10 s while users keep sending messages', () => {
  let redis: TestRedis;
  let stack: DeliveryStack;
  let bot: HookBot;
  const received = new Map<string, number>();

  beforeAll(async () => {
    redis = await TestRedis.start();
    stack = await startDeliveryStack(
      {
        REDIS_URL: redis.url,
        DELIVERY_RETRY_DELAYS_MS: '200,200,200,200',
        DELIVERY_SWEEP_INTERVAL_MS: '500',
        DELIVERY_SWEEP_GRACE_MS: '2000',
      },
      { REDIS_URL: redis.url },
    );
    bot = await hookBot(stack, 'outage', 'user-outage');
    stack.onRequest((tag, req) => {
      if (tag !== 'outage') return;
      const id = req.headers['webhook-id'] as string;
      received.set(id, (received.get(id) ?? 0) + 1);
    });
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
    await redis?.stop();
  });

  it("delivers the Update of every message that got a 2xx, by the sweeper's path for those whose job never reached Redis", async () => {
    let sending = true;
    let sent = 0;
    let accepted = 0;
    const statuses = new Map<number, number>();
    const sender = (async () => {
      while (sending) {
        sent++;
        const status = await say(stack, bot, `outage-${sent}`);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (status === 201) accepted++;
        await sleep(50);
      }
    })();
    try {
      await sleep(1000);
      await redis.stop();
      await sleep(OUTAGE_MS);
    } finally {
      // Restored whatever happened above.
      await redis.start();
    }
    await sleep(1000);
    sending = false;
    await sender;

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
    report('redis outage', {
      sent,
      answered_2xx: accepted,
      statuses: JSON.stringify(Object.fromEntries(statuses)),
      updates_written: updateIds.length,
      received: received.size,
      lost: updateIds.filter((id) => !received.has(id)).length,
      duplicated: requests - received.size,
    });
    // Every 2xx wrote its Update (and every Update is delivered); no Update without a 2xx.
    expect(updateIds.length).toBe(accepted);
    expect(accepted).toBeGreaterThan(0);
  }, 120_000);
});
