import { startDispatcher } from '../../apps/bot-api/test/dispatcher-process';
import { DataSource } from 'typeorm';
import { DeliveryStack, hookBot, HookBot, report, say, sleep, startDeliveryStack, waitUntil } from './fault-harness';

const BURST = 2000;
const SENDERS = 25;

describe('fault 1: kill -9 the dispatcher during a burst of 2,000 Updates', () => {
  let stack: DeliveryStack;
  let bot: HookBot;
  const received = new Map<string, number>();

  beforeAll(async () => {
    stack = await startDeliveryStack({
      WEBHOOK_TIMEOUT_MS: '2000',
      DELIVERY_RETRY_DELAYS_MS: '200,200,200,200',
      DELIVERY_SWEEP_INTERVAL_MS: '500',
      DELIVERY_SWEEP_GRACE_MS: '2000',
      WEBHOOK_JOB_LOCK_MS: '3000',
    });
    bot = await hookBot(stack, 'burst', 'user-burst', { max_connections: 100 });
    stack.onRequest((tag, req) => {
      if (tag !== 'burst') return;
      const id = req.headers['webhook-id'] as string;
      received.set(id, (received.get(id) ?? 0) + 1);
    });
  }, 60_000);
  afterAll(() => stack?.close());

  it('receives every update_id at least once after a restart; duplicates only repeat an update_id', async () => {
    let next = 0;
    let failedSends = 0;
    const burst = Promise.all(
      Array.from({ length: SENDERS }, async () => {
        while (next < BURST) {
          const status = await say(stack, bot, `burst-${next++}`);
          if (status !== 201) failedSends++;
        }
      }),
    );
    // Mid-burst, while deliveries are in flight.
    await waitUntil(
      () => received.size >= 300,
      60_000,
      () => `${received.size} received before the kill`,
    );
    const exit = await stack.dispatcher.stop('SIGKILL');
    expect(exit.signal).toBe('SIGKILL');
    const atKill = received.size;
    await sleep(500);
    stack.dispatcher = await startDispatcher(stack.ctx, stack.dispatcherEnv);
    await burst;
    expect(failedSends).toBe(0);

    const db = stack.ctx.app.get(DataSource);
    const updateIds: string[] = (await db.query(`SELECT update_id FROM updates WHERE bot_id = $1`, [bot.botId])).map(
      (row: { update_id: string }) => row.update_id,
    );
    expect(updateIds).toHaveLength(BURST);
    // Jobs held by the killed worker come back once their lock expires (BullMQ's stalled check, ~30 s).
    await waitUntil(
      () => updateIds.every((id) => received.has(id)),
      100_000,
      () => `${received.size} of ${BURST}`,
    );
    const requests = [...received.values()].reduce((sum, n) => sum + n, 0);
    report('dispatcher kill -9', {
      sent: BURST,
      received: received.size,
      received_before_kill: atKill,
      lost: updateIds.filter((id) => !received.has(id)).length,
      duplicated: requests - received.size,
    });
    expect([...received.keys()].every((id) => updateIds.includes(id))).toBe(true);
  }, 170_000);
});
