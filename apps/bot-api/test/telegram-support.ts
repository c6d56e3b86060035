import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { BotTestContext } from './app-context';

/** POST /telegram/bot<token>/<method> with a JSON body. */
export function tg(ctx: BotTestContext, token: string, method: string, body: object = {}) {
  return request(ctx.app.getHttpServer()).post(`/telegram/bot${token}/${method}`).send(body);
}

/**
 * Listens on a free local port and answers the API root a framework is given: the bare base URL
 * `http://127.0.0.1:<port>` (no path, no trailing slash), as for Telegram's own server.
 */
export async function listenForFrameworks(ctx: BotTestContext): Promise<string> {
  await ctx.app.listen(0, '127.0.0.1');
  return `http://127.0.0.1:${(ctx.app.getHttpServer().address() as AddressInfo).port}`;
}

/** Polls `probe` every 100 ms until it answers something other than undefined. */
export async function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
