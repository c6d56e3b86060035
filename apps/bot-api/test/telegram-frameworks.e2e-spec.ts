import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { ApprovedBot, BotTestContext, clientAs, createApprovedBot, ensureUsers, startBotApp } from './app-context';
import { pngOf } from './file-uploads';
import { FrameworkBot, grammyBot, ntbaBot, telegrafBot } from './telegram-framework-bots';
import { listenForFrameworks, until } from './telegram-support';

interface ChatMessage {
  message_id: number;
  text: string | null;
  entities?: unknown[];
  caption?: string | null;
  caption_entities?: unknown[];
  reply_to_message?: { message_id: number; text: string | null };
  file?: { url: string };
}

const png = pngOf(6, 4, 9);

describe.each([
  ['grammY', grammyBot],
  ['Telegraf', telegrafBot],
  ['node-telegram-bot-api', ntbaBot],
])('%s against the Telegram face, unchanged but for the API root', (_name, frameworkFor) => {
  let ctx: BotTestContext;
  let bot: ApprovedBot;
  let framework: FrameworkBot;
  let privateUuid: string;
  let groupUuid: string;
  let directory: string;

  beforeAll(async () => {
    ctx = await startBotApp();
    const apiRoot = await listenForFrameworks(ctx);
    bot = await createApprovedBot(ctx, 'dev-1', { name: 'Framework Bot', username: 'framework_tg_bot' });
    await ensureUsers(ctx, 'bob');
    const alice = await ctx.jwt('alice', 'Alice');
    const server = ctx.app.getHttpServer();
    privateUuid = (
      await request(server).post('/api/v1/bots/client/chats/private').set('Authorization', `Bearer ${alice}`).send({ bot_id: bot.botId }).expect(201)
    ).body.data.id;
    groupUuid = (
      await request(server)
        .post('/api/v1/bots/client/chats')
        .set('Authorization', `Bearer ${alice}`)
        .send({ type: 'group', title: 'Crew', member_ids: ['bob', bot.systemUserId] })
        .expect(201)
    ).body.data.id;
    directory = mkdtempSync(join(tmpdir(), 'tg-frameworks-'));
    framework = frameworkFor(bot.token, apiRoot);
    await framework.start();
  });
  afterAll(async () => {
    await framework?.stop();
    await ctx.close();
    rmSync(directory, { recursive: true, force: true });
  });

  async function as(user: string) {
    const jwt = await ctx.jwt(user, user === 'alice' ? 'Alice' : 'Bob');
    const server = ctx.app.getHttpServer();
    return {
      say: (chat: string, text: string) =>
        request(server).post(`/api/v1/bots/client/chats/${chat}/messages`).set('Authorization', `Bearer ${jwt}`).send({ text }).expect(201),
      messages: async (chat: string) =>
        (await request(server).get(`/api/v1/bots/client/chats/${chat}/messages`).set('Authorization', `Bearer ${jwt}`).expect(200)).body
          .data.items as ChatMessage[],
      click: (chat: string, messageId: number, data: string) =>
        request(server)
          .post('/api/v1/bots/client/callback-queries')
          .set('Authorization', `Bearer ${jwt}`)
          .send({ chat_id: chat, message_id: messageId, data })
          .expect(201),
      answer: async (id: string) =>
        (await request(server).get(`/api/v1/bots/client/callback-queries/${id}`).set('Authorization', `Bearer ${jwt}`).expect(200)).body
          .data,
    };
  }

  it("echoes a user's private message by long polling", async () => {
    const alice = await as('alice');
    await alice.say(privateUuid, 'ping');
    expect(await until(async () => (await alice.messages(privateUuid)).find((m) => m.text === 'echo: ping'))).toBeDefined();
  });

  it('sends HTML and MarkdownV2 that the user reads as plain text with the right entities', async () => {
    const alice = await as('alice');
    const html = await framework.sendFormatted('<b>Order</b> <i>shipped</i> 📦 <a href="https://shop.example/t/1">track</a>', 'HTML');
    const htmlEntities = [
      { type: 'bold', offset: 0, length: 5 },
      { type: 'italic', offset: 6, length: 7 },
      { type: 'text_link', offset: 17, length: 5, url: 'https://shop.example/t/1' },
    ];
    expect(html).toMatchObject({ text: 'Order shipped 📦 track', entities: htmlEntities });
    const markdown = await framework.sendFormatted('*Total:* 4\\.50 € ||paid|| `#A-17`', 'MarkdownV2');
    const markdownEntities = [
      { type: 'bold', offset: 0, length: 6 },
      { type: 'spoiler', offset: 14, length: 4 },
      { type: 'code', offset: 19, length: 5 },
    ];
    expect(markdown).toMatchObject({ text: 'Total: 4.50 € paid #A-17', entities: markdownEntities });
    const seen = await alice.messages(privateUuid);
    expect(seen.find((m) => m.message_id === html.message_id)).toMatchObject({ text: 'Order shipped 📦 track', entities: htmlEntities });
    expect(seen.find((m) => m.message_id === markdown.message_id)).toMatchObject({ entities: markdownEntities });
  });

  it("refuses malformed markup with Telegram's error text, and nothing reaches the user", async () => {
    const alice = await as('alice');
    const before = (await alice.messages(privateUuid)).length;
    expect(await framework.failureOf(framework.sendFormatted('Total: 4.50', 'MarkdownV2'))).toBe(
      "Bad Request: can't parse entities: Character '.' is reserved and must be escaped with the preceding '\\'",
    );
    expect(await framework.failureOf(framework.sendFormatted('<b>Order</i>', 'HTML'))).toBe(
      'Bad Request: can\'t parse entities: Unmatched end tag at byte offset 8, expected "</b>", found "</i>"',
    );
    expect(await alice.messages(privateUuid)).toHaveLength(before);
  });

  it('carries reply_to_message both ways: the bot reads what the user replied to, the user reads what the bot replied to', async () => {
    const alice = await as('alice');
    await alice.say(privateUuid, 'which size?');
    const echo = await until(async () => (await alice.messages(privateUuid)).find((m) => m.text === 'echo: which size?'));
    expect(echo.reply_to_message).toMatchObject({ text: 'which size?' });
    const server = ctx.app.getHttpServer();
    await request(server)
      .post(`/api/v1/bots/client/chats/${privateUuid}/messages`)
      .set('Authorization', `Bearer ${await ctx.jwt('alice', 'Alice')}`)
      .send({ text: 'large', reply_to_message_id: echo.message_id })
      .expect(201);
    // The echo quotes reply_to_message.text as the framework read it in the Update.
    const quoted = await until(async () => (await alice.messages(privateUuid)).find((m) => m.text === 'echo: large (re: echo: which size?)'));
    expect(quoted.reply_to_message).toMatchObject({ text: 'large' });
  });

  it('edits the caption of its photo with HTML, which the user reads with caption_entities', async () => {
    const path = join(directory, 'caption.png');
    writeFileSync(path, png);
    const { messageId } = await framework.sendPhotoFromPath(path);
    const edited = await framework.editCaption(messageId, '<b>Fresh</b> shot 📷');
    expect(edited).toMatchObject({ caption: 'Fresh shot 📷', caption_entities: [{ type: 'bold', offset: 0, length: 5 }] });
    const alice = await as('alice');
    const seen = (await alice.messages(privateUuid)).find((m) => m.message_id === messageId);
    expect(seen).toMatchObject({ caption: 'Fresh shot 📷', caption_entities: [{ type: 'bold', offset: 0, length: 5 }] });
  });

  it("approves a join request from its chat_join_request handler: the user becomes a member of the bot's group", async () => {
    const owner = clientAs(ctx, await ctx.jwt('alice', 'Alice'));
    const door = (await owner.post('/chats', { type: 'group', title: 'Door', member_ids: [bot.systemUserId] }).expect(201)).body.data.id;
    await owner.patch(`/chats/${door}/members/${bot.systemUserId}`, { role: 'administrator' }).expect(200);
    const carol = clientAs(ctx, await ctx.jwt('carol', 'Carol'));
    await carol.get(`/chats/${door}/messages`).expect(404);
    await carol.post(`/chats/${door}/join-requests`, {}).expect(201);
    await until(async () => ((await carol.get(`/chats/${door}/messages`)).status === 200 ? true : undefined));
  });

  it('answers /start in a group with privacy on, and a button click gets its answer to the client', async () => {
    const alice = await as('alice');
    const bob = await as('bob');
    await alice.say(groupUuid, 'no command here');
    await alice.say(groupUuid, '/start');
    const welcome = await until(async () => (await bob.messages(groupUuid)).find((m) => m.text === 'Welcome'));
    const clicked = await bob.click(groupUuid, welcome.message_id, 'pressed');
    const answer = await until(async () => {
      const state = await bob.answer(clicked.body.data.id);
      return state.status === 'answered' ? state.answer : undefined;
    });
    expect(answer.text).toBe('Pressed by Bob');
    // Privacy: the plain group message never reached the echo handler.
    expect((await bob.messages(groupUuid)).some((m) => m.text === 'echo: no command here')).toBe(false);
  });

  it('sends a photo from a local file that the client downloads, and downloads it through getFile', async () => {
    const path = join(directory, 'shot.png');
    writeFileSync(path, png);
    const { fileId } = await framework.sendPhotoFromPath(path);
    const alice = await as('alice');
    const seen = await until(async () => (await alice.messages(privateUuid)).find((m) => m.file?.url));
    const own = ctx.config.FILE_PUBLIC_BASE_URL.replace(/\/+$/, '');
    const viaClient = await request(ctx.app.getHttpServer()).get(seen.file!.url.slice(own.length)).buffer(true).parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });
    expect((viaClient.body as Buffer).equals(png)).toBe(true);
    const download = await fetch(await framework.fileUrl(fileId));
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(png)).toBe(true);
  });
});
