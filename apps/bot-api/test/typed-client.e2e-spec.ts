import { BotApiClient, components, createBotApiClient } from '@clients/bot-api';
import { BotTestContext, STAFF_ID, startBotApp } from './app-context';

type MessageView = components['schemas']['MessageView'];
type UpdateMessage = NonNullable<components['schemas']['UpdateView']['message']>;

/** What openapi-fetch answers: the enveloped body of a success, or the error body. */
interface Answer<T> {
  data?: { data?: T };
  error?: unknown;
  response: Response;
}

/** The `data` of a success with the expected status; anything else fails with the body received. */
async function dataOf<T>(call: Promise<Answer<T>>, status: number): Promise<T> {
  const { data, error, response } = await call;
  if (response.status !== status || data?.data === undefined) {
    throw new Error(`expected ${status}, got ${response.status}: ${JSON.stringify(data ?? error)}`);
  }
  return data.data;
}

function isNewMessage(message: UpdateMessage | undefined): message is MessageView {
  return message !== undefined && 'kind' in message;
}

/**
 * One integrator's path through bot-api with the client generated from its OpenAPI document, against
 * the app listening on 127.0.0.1: a developer applies for a bot, staff approve it, the developer reads
 * the one-time token, a user opens a private chat and writes, the bot polls, answers and then
 * switches to a webhook.
 */
describe('typed bot-api client: an integrator flow', () => {
  let ctx: BotTestContext;
  let baseUrl: string;

  beforeAll(async () => {
    ctx = await startBotApp({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    await ctx.app.listen(0, '127.0.0.1');
    baseUrl = await ctx.app.getUrl();
  });
  afterAll(() => ctx.close());

  const as = async (sub: string, roles: string[] = []): Promise<BotApiClient> =>
    createBotApiClient(baseUrl, await ctx.jwt(sub, sub, roles));

  it('applies, is approved, reads its token, is written to, polls, answers and sets a webhook', async () => {
    const developer = await as('dev-typed');
    const applied = await dataOf(
      developer.POST('/api/v1/bots/my', { body: { name: 'Typed Bot', username: 'typed_bot' } }),
      201,
    );
    expect(applied.review_status).toBe('pending');

    const staff = await as(STAFF_ID, ['platform_admin']);
    const approved = await dataOf(
      staff.POST('/api/v1/bots/admin/bots/{botId}/approve', { params: { path: { botId: applied.bot_id } } }),
      200,
    );
    expect(approved).toMatchObject({ review_status: 'approved', status: 'enabled', delivery_mode: 'polling' });

    const issued = await dataOf(
      developer.POST('/api/v1/bots/my/{botId}/token', { params: { path: { botId: applied.bot_id } } }),
      200,
    );
    expect(issued.one_time_token.startsWith(issued.token_prefix)).toBe(true);
    const bot = createBotApiClient(baseUrl, issued.one_time_token);

    const user = await as('typed-user');
    const chat = await dataOf(
      user.POST('/api/v1/bots/client/chats/private', { body: { bot_id: applied.bot_id } }),
      201,
    );
    expect(chat.bot_user_id).toBe(approved.system_user_id);
    const written = await dataOf(
      user.POST('/api/v1/bots/client/chats/{chatId}/messages', {
        params: { path: { chatId: chat.id } },
        body: { text: 'hello, typed bot' },
      }),
      201,
    );

    const updates = await dataOf(bot.POST('/api/v1/bots/getUpdates', { body: { timeout: 0 } }), 200);
    const received = updates.map((update) => update.message).find(isNewMessage);
    expect(received).toMatchObject({ message_id: written.message_id, text: 'hello, typed bot', kind: 'text' });

    const answer = await dataOf(
      bot.POST('/api/v1/bots/sendMessage', { body: { chat_id: received!.chat.id, text: 'hello, person' } }),
      201,
    );
    expect(answer).toMatchObject({ chat: { id: chat.id }, from: { id: approved.system_user_id, is_bot: true } });

    const hook = 'https://127.0.0.1:9/typed-bot';
    const set = await dataOf(
      bot.POST('/api/v1/bots/setWebhook', { body: { url: hook, secret_token: 'typed_secret', max_connections: 5 } }),
      200,
    );
    expect(set).toBe(true);
    const info = await dataOf(bot.GET('/api/v1/bots/getWebhookInfo'), 200);
    expect(info).toMatchObject({ url: hook, max_connections: 5 });
  });
});
