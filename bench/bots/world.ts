import { Accounts, ApiClient, inParallel } from '../lib/api';
import type { RequestShape } from '../lib/load';

export const BOT_API = '/api/v1/bots';

export interface BenchBot {
  botId: string;
  token: string;
  owner: string;
  /** One private chat per bench user, made by the user through the client route. */
  chats: string[];
}

/** The bots and chats every bot path works on, all made through the public API. */
export interface BotWorld {
  api: ApiClient;
  accounts: Accounts;
  users: string[];
  /** A polling bot: sendMessage, getUpdates and the long-poll wake-up. */
  polling: BenchBot;
  /** A webhook bot whose Updates the dispatcher POSTs to the bench's HTTPS receiver. */
  webhook: BenchBot;
}

/** Apply as the developer, approve as platform staff, read the one-time token as the developer. */
export async function approvedBot(api: ApiClient, accounts: Accounts, owner: string, username: string) {
  const developer = await accounts.user(owner);
  const applied = await api.call('POST', `${BOT_API}/my`, developer, { name: `Bench ${username}`, username });
  await api.call('POST', `${BOT_API}/admin/bots/${applied.bot_id}/approve`, await accounts.admin());
  const read = await api.call('POST', `${BOT_API}/my/${applied.bot_id}/token`, developer);
  return { botId: applied.bot_id as string, token: read.one_time_token as string, owner };
}

export async function privateChats(
  api: ApiClient,
  accounts: Accounts,
  botId: string,
  users: string[],
): Promise<string[]> {
  return inParallel(users, 8, async (user) => {
    const chat = await api.call('POST', `${BOT_API}/client/chats/private`, await accounts.user(user), {
      bot_id: botId,
    });
    return chat.id as string;
  });
}

export async function prepareBotWorld(
  api: ApiClient,
  accounts: Accounts,
  options: { users: number; webhookUrl: string; webhookSecret: string },
): Promise<BotWorld> {
  const users = Array.from({ length: options.users }, (_, i) => `bench-user-${i}`);
  const polling = await approvedBot(api, accounts, 'bench-dev-polling', 'bench_polling_bot');
  const webhook = await approvedBot(api, accounts, 'bench-dev-webhook', 'bench_webhook_bot');
  await api.call('POST', `${BOT_API}/setWebhook`, webhook.token, {
    url: options.webhookUrl,
    secret_token: options.webhookSecret,
  });
  return {
    api,
    accounts,
    users,
    polling: { ...polling, chats: await privateChats(api, accounts, polling.botId, users) },
    webhook: { ...webhook, chats: await privateChats(api, accounts, webhook.botId, users) },
  };
}

/** The bot's sendMessage, round-robin over its chats. */
export function sendMessageRequests(bot: BenchBot): () => RequestShape {
  let i = 0;
  return () => {
    const n = i++;
    return {
      method: 'POST',
      path: `${BOT_API}/sendMessage`,
      headers: { authorization: `Bearer ${bot.token}` },
      body: JSON.stringify({ chat_id: bot.chats[n % bot.chats.length], text: `bench message ${n}` }),
    };
  };
}

/**
 * Users' messages to the bot, round-robin over the users' private chats. `text(n)` lets a latency
 * probe put a marker into the message so its webhook can be matched.
 */
export async function intakeRequests(
  world: BotWorld,
  bot: BenchBot,
  text: (n: number) => string = (n) => `hello bot ${n}`,
): Promise<() => RequestShape> {
  const tokens = await Promise.all(world.users.map((user) => world.accounts.user(user)));
  let i = 0;
  return () => {
    const n = i++;
    const u = n % bot.chats.length;
    return {
      method: 'POST',
      path: `${BOT_API}/client/chats/${bot.chats[u]}/messages`,
      headers: { authorization: `Bearer ${tokens[u]}` },
      body: JSON.stringify({ text: text(n) }),
    };
  };
}
