import request from 'supertest';
import { DataSource } from 'typeorm';
import { eventually, HttpsReceiver, ReceiverAnswer, startHttpsReceiver } from '@app/testing';
import { ApprovedBot, BotTestContext, callBot, createApprovedBot } from './app-context';

export const STAFF = 'sre-1';

/**
 * A webhook receiver whose answer each bot's test decides by tag (`?bot=<tag>` in the URL), and bots
 * pointed at it, each with a private chat of one end user who writes the Updates.
 */
export class DeliveryWorld {
  readonly answers = new Map<string, ReceiverAnswer>();

  private constructor(readonly receiver: HttpsReceiver) {}

  static async start(): Promise<DeliveryWorld> {
    const receiver = await startHttpsReceiver();
    const world = new DeliveryWorld(receiver);
    receiver.answer((req) => world.answers.get(tagOf(req.path)) ?? 200);
    return world;
  }

  /** Requests per update_id that reached the bot's receiver. */
  receivedBy(tag: string): Map<string, number> {
    const counts = new Map<string, number>();
    for (const req of this.receiver.requests.filter((r) => tagOf(r.path) === tag)) {
      const id = req.headers['x-service-update-id'] as string;
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return counts;
  }
}

const tagOf = (path: string) => new URL(path, 'https://x').searchParams.get('bot') ?? '';

export interface HookBot extends ApprovedBot {
  tag: string;
  owner: string;
  chatId: string;
}

export async function hookBot(ctx: BotTestContext, world: DeliveryWorld, tag: string): Promise<HookBot> {
  const owner = `dev-${tag}`;
  const bot = await createApprovedBot(ctx, owner, { username: `${tag}_bot` });
  const set = await callBot(ctx, bot.token, 'setWebhook', {
    url: `${world.receiver.url}?bot=${tag}`,
    secret_token: 'staff-test-secret',
  });
  if (set.status !== 200) throw new Error(`setWebhook: ${set.status} ${JSON.stringify(set.body)}`);
  const chat = await request(ctx.app.getHttpServer())
    .post('/api/v1/bots/client/chats/private')
    .set('Authorization', `Bearer ${await ctx.jwt('enduser')}`)
    .send({ bot_id: bot.botId })
    .expect(201);
  return { ...bot, tag, owner, chatId: chat.body.data.id };
}

export async function say(ctx: BotTestContext, bot: HookBot, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await request(ctx.app.getHttpServer())
      .post(`/api/v1/bots/client/chats/${bot.chatId}/messages`)
      .set('Authorization', `Bearer ${await ctx.jwt('enduser')}`)
      .send({ text: `message ${i}` })
      .expect(201);
  }
}

/**
 * Reads until `check` holds and answers that value, failing with what was last seen. Every 100 ms:
 * some reads go through rate-limited staff routes.
 */
export function readUntil<T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  return eventually(
    async () => {
      const value = await read();
      if (!check(value)) throw new Error(`condition not reached; last: ${JSON.stringify(value)}`);
      return value;
    },
    timeoutMs,
    100,
  );
}

export async function statusesOf(db: DataSource, botId: string): Promise<string[]> {
  const rows: Array<{ status: string }> = await db.query(
    `SELECT status FROM webhook_deliveries WHERE bot_id = $1 ORDER BY update_seq`,
    [botId],
  );
  return rows.map((row) => row.status);
}

/** Dispatcher settings that make five failed attempts take well under a second. */
export const FAST_RETRIES = {
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_TIMEOUT_MS: '1000',
  DELIVERY_RETRY_DELAYS_MS: '20,20,20,20',
  DELIVERY_SWEEP_INTERVAL_MS: '200',
  DELIVERY_SWEEP_GRACE_MS: '1000',
};
