import { ServiceProcess, startServiceProcess, testEnv } from '@app/testing';
import { DataSource } from 'typeorm';
import { DeliveryStack, hookBot, HookBot, report, startDeliveryStack, waitUntil } from './fault-harness';

const BURST = 1000;
const SENDERS = 20;
const KILL_AFTER = 300;

type Outcome = 'answered_2xx' | 'answered_other' | 'no_answer';

describe('fault 3: kill -9 bot-api during a burst of client messages', () => {
  let stack: DeliveryStack;
  let bot: HookBot;
  let botApi: ServiceProcess;
  const received = new Map<string, number>();

  beforeAll(async () => {
    stack = await startDeliveryStack({
      DELIVERY_RETRY_DELAYS_MS: '200,200,200,200',
      DELIVERY_SWEEP_INTERVAL_MS: '500',
      DELIVERY_SWEEP_GRACE_MS: '2000',
    });
    bot = await hookBot(stack, 'crash', 'user-crash');
    stack.onRequest((tag, req) => {
      if (tag !== 'crash') return;
      const id = req.headers['webhook-id'] as string;
      received.set(id, (received.get(id) ?? 0) + 1);
    });
    // A second bot-api, as its own process on the same database and Redis, is the one killed.
    botApi = await startServiceProcess(
      'apps/bot-api/src/main.ts',
      testEnv(stack.ctx.config.DB_NAME, stack.ctx.config.REDIS_KEY_PREFIX, {
        COORDINATION_BACKEND: stack.ctx.config.coordinationBackend,
        LOG_LEVEL: 'warn',
        MIGRATIONS_RUN: 'false',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_SECRET_KEY: stack.ctx.config.WEBHOOK_SECRET_KEY,
        RATE_LIMITS: 'client.write=1000000,client.read=1000000',
      }),
    );
  }, 90_000);
  afterAll(async () => {
    await botApi?.stop('SIGKILL');
    await stack?.close();
  });

  async function send(text: string): Promise<Outcome> {
    try {
      const res = await fetch(`http://127.0.0.1:${botApi.port}/api/v1/bots/client/chats/${bot.chatId}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bot.userToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text }),
      });
      await res.arrayBuffer();
      return res.status >= 200 && res.status < 300 ? 'answered_2xx' : 'answered_other';
    } catch {
      return 'no_answer';
    }
  }

  it('delivers the Update of every message that got a 2xx, and leaves none without an answer half-written', async () => {
    const outcomes = new Map<string, Outcome>();
    let next = 0;
    let killed = false;
    await Promise.all(
      Array.from({ length: SENDERS }, async () => {
        while (next < BURST && !killed) {
          const text = `crash-${next++}`;
          outcomes.set(text, await send(text));
          if (outcomes.size >= KILL_AFTER && !killed) {
            killed = true;
            expect((await botApi.stop('SIGKILL')).signal).toBe('SIGKILL');
          }
        }
      }),
    );

    const db = stack.ctx.app.get(DataSource);
    const rows: Array<{ text: string; update_id: string | null }> = await db.query(
      `SELECT m.text, u.update_id FROM messages m
         LEFT JOIN updates u ON u.bot_id = $2 AND u.payload -> 'message' ->> 'message_id' = m.id::text
        WHERE m.chat_id = $1`,
      [bot.chatId, bot.botId],
    );
    const written = new Map(rows.map((row) => [row.text, row.update_id]));
    const count = (outcome: Outcome) => [...outcomes.values()].filter((o) => o === outcome).length;
    const halfWritten = rows.filter((row) => row.update_id === null).map((row) => row.text);
    const missing = [...outcomes].filter(([text, o]) => o === 'answered_2xx' && !written.has(text)).map(([t]) => t);
    const updateIds = rows.flatMap((row) => (row.update_id ? [row.update_id] : []));
    await waitUntil(
      () => updateIds.every((id) => received.has(id)),
      60_000,
      () => `${received.size} of ${updateIds.length}`,
    );
    const requests = [...received.values()].reduce((sum, n) => sum + n, 0);
    report('bot-api kill -9', {
      sent: outcomes.size,
      answered_2xx: count('answered_2xx'),
      no_answer: count('no_answer'),
      written: rows.length,
      received: received.size,
      lost: missing.length + updateIds.filter((id) => !received.has(id)).length,
      half_written: halfWritten.length,
      duplicated: requests - received.size,
    });
    expect(count('answered_2xx')).toBeGreaterThan(0);
    expect(missing).toEqual([]);
    expect(halfWritten).toEqual([]);
  }, 150_000);
});
