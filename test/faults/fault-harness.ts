import { fork } from 'node:child_process';
import { join } from 'node:path';
import { HttpsReceiver, ReceivedRequest, ReceiverAnswer, startHttpsReceiver } from '@app/testing';
import request from 'supertest';
import {
  ApprovedBot,
  BotTestContext,
  callBot,
  createApprovedBot,
  startBotApp,
} from '../../apps/bot-api/test/app-context';
import { DispatcherProcess, startDispatcher } from '../../apps/bot-api/test/dispatcher-process';

export const HOOK_SECRET = 'fault_secret-1';

/** bot-api (in this process), one bot-dispatcher process and a local HTTPS receiver that routes by `?bot=`. */
export interface DeliveryStack {
  ctx: BotTestContext;
  receiver: HttpsReceiver;
  /** Replaced by a scenario that restarts the dispatcher; close() stops whichever runs. */
  dispatcher: DispatcherProcess;
  dispatcherEnv: Record<string, string>;
  /** Sets how the receiver answers one bot's requests (200 by default). */
  answerFor(tag: string, decide: (request: ReceivedRequest) => ReceiverAnswer): void;
  /** Called for every request the receiver gets, before it answers. */
  onRequest(listener: (tag: string, request: ReceivedRequest) => void): void;
  close(): Promise<void>;
}

export interface HookBot extends ApprovedBot {
  tag: string;
  chatId: string;
  userToken: string;
}

export const tagOf = (req: ReceivedRequest): string =>
  new URL(req.path, 'https://receiver').searchParams.get('bot') ?? '';

export async function startDeliveryStack(
  dispatcherEnv: Record<string, string>,
  botApiEnv: Record<string, string> = {},
): Promise<DeliveryStack> {
  const answers = new Map<string, (request: ReceivedRequest) => ReceiverAnswer>();
  const listeners: Array<(tag: string, request: ReceivedRequest) => void> = [];
  const receiver = await startHttpsReceiver({ keepRequests: false });
  receiver.answer((req) => {
    const tag = tagOf(req);
    for (const listener of listeners) listener(tag, req);
    return answers.get(tag)?.(req) ?? 200;
  });
  // Client routes are limited per account; the scenarios send far more than a person would.
  const ctx = await startBotApp({
    WEBHOOK_ALLOW_PRIVATE: 'true',
    RATE_LIMITS: 'client.write=1000000,client.read=1000000',
    ...botApiEnv,
  });
  const env = {
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_CA_FILE: receiver.caFile,
    ...dispatcherEnv,
  };
  const stack: DeliveryStack = {
    ctx,
    receiver,
    dispatcher: await startDispatcher(ctx, env),
    dispatcherEnv: env,
    answerFor: (tag, decide) => answers.set(tag, decide),
    onRequest: (listener) => listeners.push(listener),
    async close() {
      try {
        await stack.dispatcher.stop('SIGKILL');
        await ctx.close();
      } finally {
        await receiver.close();
      }
    },
  };
  return stack;
}

/** An approved bot with a webhook to the stack's receiver and a private chat with `user`. */
export async function hookBot(
  stack: DeliveryStack,
  tag: string,
  user: string,
  webhook: Record<string, unknown> = {},
): Promise<HookBot> {
  const { ctx, receiver } = stack;
  const bot = await createApprovedBot(ctx, `dev-${tag}`, { username: `${tag}_bot` });
  await callBot(ctx, bot.token, 'setWebhook', {
    url: `${receiver.url}?bot=${tag}`,
    secret_token: HOOK_SECRET,
    ...webhook,
  }).expect(200);
  const userToken = await ctx.jwt(user, user);
  const chat = await request(ctx.app.getHttpServer())
    .post('/api/v1/bots/client/chats/private')
    .set('Authorization', `Bearer ${userToken}`)
    .send({ bot_id: bot.botId })
    .expect(201);
  return { ...bot, tag, chatId: chat.body.data.id, userToken };
}

/** A user's message to the bot; resolves with the HTTP status (the caller decides what a failure means). */
export async function say(stack: DeliveryStack, bot: HookBot, text: string): Promise<number> {
  const res = await request(stack.ctx.app.getHttpServer())
    .post(`/api/v1/bots/client/chats/${bot.chatId}/messages`)
    .set('Authorization', `Bearer ${bot.userToken}`)
    .send({ text });
  return res.status;
}

/** The message text of a delivered Update (the scenarios tag each message by its text). */
export function textOf(req: ReceivedRequest): string | undefined {
  const update = JSON.parse(req.rawBody.toString('utf8')) as { message?: { text?: string } };
  return update.message?.text;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `check` is true; throws with `describe()` after `timeoutMs`. */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, describe: () => string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${describe()}`);
    await sleep(50);
  }
}

/** One line per scenario, the figures the issue asks every scenario to print. */
export function report(scenario: string, figures: Record<string, number | string>): void {
  const line = Object.entries(figures)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');
  process.stdout.write(`[fault] ${scenario}: ${line}\n`);
}

/** A receiver in its own process (receiver-process.ts): its URL, and each request's text and arrival time. */
export interface ReceiverProcess {
  url: string;
  onReceived(listener: (text: string, at: number) => void): void;
  close(): Promise<void>;
}

export async function startReceiverProcess(certificate: {
  certFile: string;
  keyFile: string;
}): Promise<ReceiverProcess> {
  const child = fork(join(__dirname, 'receiver-process.ts'), [], {
    cwd: join(__dirname, '..', '..'),
    execArgv: ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register'],
    env: {
      ...process.env,
      TS_NODE_TRANSPILE_ONLY: 'true',
      RECEIVER_CERT_FILE: certificate.certFile,
      RECEIVER_KEY_FILE: certificate.keyFile,
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const listeners: Array<(text: string, at: number) => void> = [];
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`receiver process exited with ${code}`)));
    child.on('message', (message: { url?: string; received?: string; at?: number }) => {
      if (message.url) resolve(message.url);
      if (message.received !== undefined) for (const listener of listeners) listener(message.received, message.at ?? 0);
    });
  });
  child.removeAllListeners('exit');
  return {
    url,
    onReceived: (listener) => listeners.push(listener),
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
      await exited;
      clearTimeout(timer);
    },
  };
}
