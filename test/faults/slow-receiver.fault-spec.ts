import { DataSource } from 'typeorm';
import { DeliveryStack, hookBot, HookBot, report, say, startDeliveryStack, waitUntil } from './fault-harness';

const TIMEOUT_MS = 500;
const RETRY_DELAY_MS = 200;
const MESSAGES = 20;
/** Attempts each Update gets no answer in time before the receiver recovers. */
const SLOW_ATTEMPTS = 2;

describe('fault 4: a receiver slower than the timeout', () => {
  let stack: DeliveryStack;
  let bot: HookBot;
  const arrivals = new Map<string, number[]>();

  beforeAll(async () => {
    stack = await startDeliveryStack({
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      DELIVERY_RETRY_DELAYS_MS: Array(4).fill(RETRY_DELAY_MS).join(','),
    });
    bot = await hookBot(stack, 'slow', 'user-slow');
    stack.answerFor('slow', (req) => {
      const id = req.headers['webhook-id'] as string;
      const seen = arrivals.get(id) ?? [];
      seen.push(Date.now());
      arrivals.set(id, seen);
      return seen.length <= SLOW_ATTEMPTS ? { status: 200, delayMs: TIMEOUT_MS * 3 } : 200;
    });
  }, 60_000);
  afterAll(() => stack?.close());

  it('counts each late answer as a failed attempt, retries it, and never runs two attempts of one delivery at once', async () => {
    for (let i = 0; i < MESSAGES; i++) expect(await say(stack, bot, `slow-${i}`)).toBe(201);
    const db = stack.ctx.app.get(DataSource);
    const rows = async (): Promise<Array<{ update_id: string; status: string; attempts: number }>> =>
      db.query(`SELECT update_id, status, attempts FROM webhook_deliveries WHERE bot_id = $1`, [bot.botId]);
    await waitUntil(
      async () => (await rows()).filter((r) => r.status === 'succeeded').length === MESSAGES,
      30_000,
      () => `${arrivals.size} of ${MESSAGES} received`,
    );
    const deliveries = await rows();
    const requests = [...arrivals.values()].reduce((sum, times) => sum + times.length, 0);
    report('slow receiver', {
      sent: MESSAGES,
      received: arrivals.size,
      lost: deliveries.filter((r) => !arrivals.has(r.update_id)).length,
      duplicated: requests - arrivals.size,
    });
    for (const row of deliveries) expect(row).toMatchObject({ status: 'succeeded', attempts: SLOW_ATTEMPTS + 1 });
    const [{ timeouts }] = await db.query(
      `SELECT count(*)::int AS timeouts FROM webhook_delivery_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
        WHERE d.bot_id = $1 AND a.error = $2`,
      [bot.botId, `no response within ${TIMEOUT_MS} ms`],
    );
    expect(timeouts).toBe(MESSAGES * SLOW_ATTEMPTS);
    // An attempt starts only after the previous one timed out and its retry delay passed: never two at once.
    for (const times of arrivals.values()) {
      for (let i = 1; i < times.length; i++) {
        expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(TIMEOUT_MS + RETRY_DELAY_MS - 50);
      }
    }
  });
});
