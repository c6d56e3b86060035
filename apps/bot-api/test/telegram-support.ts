import type { Bot as GrammyBot, PollingOptions } from 'grammy';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { eventually } from '@app/testing';
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

/** Polls `probe` every 100 ms until it answers something other than undefined, and answers that. */
export function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  return eventually(
    async () => {
      const value = await probe();
      if (value === undefined) throw new Error('condition not met in time');
      return value;
    },
    timeoutMs,
    100,
  );
}

/**
 * Runs `body` while the grammY bot long-polls (from its first getUpdates on), and stops the bot
 * afterwards whatever happened.
 */
export async function whilePolling(
  bot: GrammyBot,
  body: () => Promise<void>,
  allowedUpdates?: PollingOptions['allowed_updates'],
): Promise<void> {
  await new Promise<void>((resolve) => {
    void bot.start({ timeout: 1, onStart: () => resolve(), allowed_updates: allowedUpdates });
  });
  try {
    await body();
  } finally {
    await bot.stop();
  }
}
