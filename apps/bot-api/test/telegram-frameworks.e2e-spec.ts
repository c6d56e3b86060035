import { mkdtempSync, openAsBlob, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import request from 'supertest';
import { Markup, Telegraf } from 'telegraf';
import { Bot as NtbaBot, InlineKeyboardBuilder, InputFile as NtbaInputFile } from 'node-telegram-bot-api';
import { ApprovedBot, BotTestContext, createApprovedBot, ensureUsers, startBotApp } from './app-context';
import { pngOf } from './file-uploads';
import { listenForFrameworks, until } from './telegram-support';

interface ChatMessage {
  message_id: number;
  text: string | null;
  file?: { url: string };
}

/** What each framework does in the same scenario, written as its own documentation shows. */
interface FrameworkBot {
  /** Starts long polling with: echo of private texts, /start with a button in groups, the button's answer. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Sends the local file as a photo into the chat of the last private message. */
  sendPhotoFromPath(path: string): Promise<{ fileId: string }>;
  /** getFile, then the download URL as the framework builds it. */
  fileUrl(fileId: string): Promise<string>;
}

const png = pngOf(6, 4, 9);

describe.each([
  [
    'Telegraf',
    (token: string, apiRoot: string): FrameworkBot => {
      const bot = new Telegraf(token, { telegram: { apiRoot } });
      let lastChat = 0;
      bot.command('start', (ctx) => ctx.reply('Welcome', Markup.inlineKeyboard([Markup.button.callback('Press', 'pressed')])));
      bot.action('pressed', (ctx) => ctx.answerCbQuery(`Pressed by ${ctx.from.first_name}`));
      bot.on('text', (ctx) => {
        lastChat = ctx.chat.id;
        return ctx.reply(`echo: ${ctx.message.text}`);
      });
      let running: Promise<void> | undefined;
      return {
        start: () =>
          new Promise<void>((resolve) => {
            running = bot.launch({ allowedUpdates: ['message', 'callback_query'] }, () => resolve());
          }),
        stop: async () => {
          bot.stop('test done');
          await running;
        },
        sendPhotoFromPath: async (path) => {
          const sent = await bot.telegram.sendPhoto(lastChat, { source: path });
          return { fileId: sent.photo[0].file_id };
        },
        fileUrl: async (fileId) => (await bot.telegram.getFileLink(fileId)).toString(),
      };
    },
  ],
  [
    'node-telegram-bot-api',
    (token: string, apiRoot: string): FrameworkBot => {
      const bot = new NtbaBot(token, { apiRoot });
      let lastChat = 0;
      bot.command('start', (ctx) =>
        ctx.reply('Welcome', { reply_markup: new InlineKeyboardBuilder().text('Press', 'pressed').build() }),
      );
      bot.on('callback_query', (ctx) => ctx.answerCallbackQuery({ text: `Pressed by ${ctx.from!.first_name}` }));
      bot.on('message', async (ctx) => {
        if (ctx.chat?.type !== 'private' || !ctx.message?.text) return;
        lastChat = ctx.chat.id;
        await ctx.reply(`echo: ${ctx.message.text}`);
      });
      let running: Promise<void> | undefined;
      return {
        start: async () => {
          await bot.api.deleteWebhook({});
          running = bot.startPolling(undefined, { timeout: 1 });
        },
        stop: async () => {
          bot.stop();
          await running;
        },
        sendPhotoFromPath: async (path) => {
          // The core InputFile over a disk-backed Blob: the CommonJS build of the `/node` entry's fromPath
          // makes an InputFile of another module instance, which the core then does not recognise.
          const photo = new NtbaInputFile(await openAsBlob(path), { filename: basename(path) });
          const sent = await bot.api.sendPhoto({ chat_id: lastChat, photo });
          return { fileId: sent.photo![0].file_id };
        },
        fileUrl: async (fileId) => {
          const file = await bot.api.getFile({ file_id: fileId });
          return `${apiRoot}/file/bot${token}/${file.file_path}`;
        },
      };
    },
  ],
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
