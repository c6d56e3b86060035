import { openAsBlob } from 'node:fs';
import { basename } from 'node:path';
import { Bot as GrammyBot, GrammyError, InlineKeyboard, InputFile as GrammyInputFile } from 'grammy';
import { Markup, Telegraf, TelegramError } from 'telegraf';
import {
  Bot as NtbaBot,
  InlineKeyboardBuilder,
  InputFile as NtbaInputFile,
  TelegramApiError,
} from 'node-telegram-bot-api';

/** The parts of a Telegram Message the scenarios read back from a framework. */
export interface SentMessage {
  message_id: number;
  text?: string;
  entities?: unknown[];
  caption?: string;
  caption_entities?: unknown[];
}

/**
 * What each framework does in the same scenario, written as its own documentation shows: long polling
 * with an echo of private texts that replies to (and quotes the reply of) the message it answers,
 * /start with a button in groups, the button's answer, and join requests approved as they come.
 */
export interface FrameworkBot {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Sends the local file as a photo into the chat of the last private message. */
  sendPhotoFromPath(path: string): Promise<{ fileId: string; messageId: number }>;
  /** getFile, then the download URL as the framework builds it. */
  fileUrl(fileId: string): Promise<string>;
  /** sendMessage with a parse_mode into the chat of the last private message. */
  sendFormatted(text: string, parseMode: 'HTML' | 'MarkdownV2'): Promise<SentMessage>;
  /** editMessageCaption with HTML in the chat of the last private message. */
  editCaption(messageId: number, caption: string): Promise<SentMessage>;
  /** The Telegram description of the error a call of this framework failed with. */
  failureOf(call: Promise<unknown>): Promise<string>;
}

/** The echo's answer: quotes the message the incoming one replies to, as the bot read it in its Update. */
function echoOf(message: { text?: string; reply_to_message?: { text?: string } }): string {
  const quoted = message.reply_to_message?.text;
  return `echo: ${message.text}${quoted ? ` (re: ${quoted})` : ''}`;
}

const ALLOWED_UPDATES = ['message', 'callback_query', 'chat_join_request'] as const;

async function failureOf(call: Promise<unknown>, describe: (error: unknown) => string | undefined): Promise<string> {
  try {
    await call;
  } catch (error) {
    const description = describe(error);
    if (description !== undefined) return description;
    throw error;
  }
  throw new Error('the call succeeded');
}

export function grammyBot(token: string, apiRoot: string): FrameworkBot {
  const bot = new GrammyBot(token, { client: { apiRoot } });
  let lastChat = 0;
  bot.command('start', (ctx) => ctx.reply('Welcome', { reply_markup: new InlineKeyboard().text('Press', 'pressed') }));
  bot.callbackQuery('pressed', (ctx) => ctx.answerCallbackQuery({ text: `Pressed by ${ctx.from.first_name}` }));
  bot.chatType('private').on('message:text', (ctx) => {
    lastChat = ctx.chat.id;
    return ctx.reply(echoOf(ctx.message), { reply_parameters: { message_id: ctx.message.message_id } });
  });
  bot.on('chat_join_request', (ctx) => ctx.approveChatJoinRequest(ctx.chatJoinRequest.from.id));
  return {
    start: () =>
      new Promise<void>((resolve) => {
        void bot.start({ timeout: 1, allowed_updates: [...ALLOWED_UPDATES], onStart: () => resolve() });
      }),
    stop: () => bot.stop(),
    sendPhotoFromPath: async (path) => {
      const sent = await bot.api.sendPhoto(lastChat, new GrammyInputFile(path));
      return { fileId: sent.photo.at(-1)!.file_id, messageId: sent.message_id };
    },
    fileUrl: async (fileId) => {
      const file = await bot.api.getFile(fileId);
      return `${apiRoot}/file/bot${token}/${file.file_path}`;
    },
    sendFormatted: (text, parseMode) => bot.api.sendMessage(lastChat, text, { parse_mode: parseMode }),
    editCaption: async (messageId, caption) =>
      (await bot.api.editMessageCaption(lastChat, messageId, { caption, parse_mode: 'HTML' })) as SentMessage,
    failureOf: (call) => failureOf(call, (error) => (error instanceof GrammyError ? error.description : undefined)),
  };
}

export function telegrafBot(token: string, apiRoot: string): FrameworkBot {
  const bot = new Telegraf(token, { telegram: { apiRoot } });
  let lastChat = 0;
  bot.command('start', (ctx) =>
    ctx.reply('Welcome', Markup.inlineKeyboard([Markup.button.callback('Press', 'pressed')])),
  );
  bot.action('pressed', (ctx) => ctx.answerCbQuery(`Pressed by ${ctx.from.first_name}`));
  bot.on('text', (ctx) => {
    lastChat = ctx.chat.id;
    return ctx.reply(echoOf(ctx.message as Parameters<typeof echoOf>[0]), {
      reply_parameters: { message_id: ctx.message.message_id },
    });
  });
  bot.on('chat_join_request', (ctx) => ctx.approveChatJoinRequest(ctx.chatJoinRequest.from.id));
  let running: Promise<void> | undefined;
  return {
    start: () =>
      new Promise<void>((resolve) => {
        running = bot.launch({ allowedUpdates: [...ALLOWED_UPDATES] }, () => resolve());
      }),
    stop: async () => {
      bot.stop('test done');
      await running;
    },
    sendPhotoFromPath: async (path) => {
      const sent = await bot.telegram.sendPhoto(lastChat, { source: path });
      return { fileId: sent.photo[0].file_id, messageId: sent.message_id };
    },
    fileUrl: async (fileId) => (await bot.telegram.getFileLink(fileId)).toString(),
    sendFormatted: (text, parseMode) => bot.telegram.sendMessage(lastChat, text, { parse_mode: parseMode }),
    editCaption: async (messageId, caption) =>
      (await bot.telegram.editMessageCaption(lastChat, messageId, undefined, caption, {
        parse_mode: 'HTML',
      })) as SentMessage,
    failureOf: (call) =>
      failureOf(call, (error) => (error instanceof TelegramError ? error.response.description : undefined)),
  };
}

export function ntbaBot(token: string, apiRoot: string): FrameworkBot {
  const bot = new NtbaBot(token, { apiRoot });
  let lastChat = 0;
  bot.command('start', (ctx) =>
    ctx.reply('Welcome', { reply_markup: new InlineKeyboardBuilder().text('Press', 'pressed').build() }),
  );
  bot.on('callback_query', (ctx) => ctx.answerCallbackQuery({ text: `Pressed by ${ctx.from!.first_name}` }));
  bot.on('message', async (ctx) => {
    if (ctx.chat?.type !== 'private' || !ctx.message?.text) return;
    lastChat = ctx.chat.id;
    await ctx.reply(echoOf(ctx.message), { reply_parameters: { message_id: ctx.message.message_id } });
  });
  bot.on('chat_join_request', async (ctx) => {
    const request = 'chat_join_request' in ctx.update ? ctx.update.chat_join_request : undefined;
    if (request) await ctx.api.approveChatJoinRequest({ chat_id: request.chat.id, user_id: request.from.id });
  });
  let running: Promise<void> | undefined;
  return {
    start: async () => {
      await bot.api.deleteWebhook({});
      running = bot.startPolling(undefined, { timeout: 1, allowedUpdates: [...ALLOWED_UPDATES] });
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
      return { fileId: sent.photo![0].file_id, messageId: sent.message_id };
    },
    fileUrl: async (fileId) => {
      const file = await bot.api.getFile({ file_id: fileId });
      return `${apiRoot}/file/bot${token}/${file.file_path}`;
    },
    sendFormatted: (text, parseMode) =>
      bot.api.sendMessage({ chat_id: lastChat, text, parse_mode: parseMode }) as Promise<SentMessage>,
    editCaption: async (messageId, caption) =>
      (await bot.api.editMessageCaption({
        chat_id: lastChat,
        message_id: messageId,
        caption,
        parse_mode: 'HTML',
      })) as SentMessage,
    failureOf: (call) =>
      failureOf(call, (error) => (error instanceof TelegramApiError ? error.description : undefined)),
  };
}
