import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ServiceTestContext, startServiceTestApp, waitUntil } from '@app/testing';
import { BOT_API_DOCS } from '../src/api-docs';
import { AppModule } from '../src/app.module';
import { BotConfig } from '../src/config/bot.config';
import { botMigrations } from '../src/database/migrations';
import { UpdatesMetrics } from '../src/updates/updates.metrics';

export type BotTestContext = ServiceTestContext<BotConfig>;

/**
 * A bot-api instance on its own freshly migrated database and Redis prefix. Every `/api/` response
 * it sends is checked against the OpenAPI document when the context closes.
 */
export function startBotApp(extraEnv: Record<string, string> = {}): Promise<BotTestContext> {
  return startServiceTestApp({
    service: 'bot',
    migrations: botMigrations,
    schema: BotConfig,
    module: (config) => AppModule.forRoot(config),
    env: extraEnv,
    contract: BOT_API_DOCS,
  });
}

/**
 * Waits until `count` getUpdates calls of `app` are waiting for an Update, as /metrics reports them
 * (bot_get_updates_waiting): a long poll started with supertest is only on its way until then.
 */
export async function pollsWaiting(app: INestApplication, count = 1): Promise<void> {
  const gauge = app.get(UpdatesMetrics).waiting;
  await waitUntil(async () => (await gauge.get()).values[0]?.value === count, `${count} getUpdates call(s) waiting`);
}

export const STAFF_ID = 'staff-reviewer';

export interface ApprovedBot {
  botId: string;
  token: string;
  systemUserId: string;
}

export interface BotApplication {
  name?: string;
  username?: string;
  scopes?: string[];
}

/** Applies for a bot as `ownerId` through the developer route; returns its id (review_status pending). */
export async function submitBot(
  ctx: BotTestContext,
  ownerId: string,
  application: BotApplication = {},
): Promise<string> {
  const res = await request(ctx.app.getHttpServer())
    .post('/api/v1/bots/my')
    .set('Authorization', `Bearer ${await ctx.jwt(ownerId)}`)
    .send({ name: application.name ?? `Bot of ${ownerId}`, ...application });
  if (res.status !== 201) throw new Error(`submit failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.bot_id as string;
}

/** Submit, staff approval and the one-time token read, all over HTTP: a bot ready for bot-token calls. */
export async function createApprovedBot(
  ctx: BotTestContext,
  ownerId: string,
  application: BotApplication = {},
): Promise<ApprovedBot> {
  const server = ctx.app.getHttpServer();
  const botId = await submitBot(ctx, ownerId, application);
  const approved = await request(server)
    .post(`/api/v1/bots/admin/bots/${botId}/approve`)
    .set('Authorization', `Bearer ${await ctx.jwt(STAFF_ID, 'Staff', ['platform_admin'])}`);
  if (approved.status !== 200) throw new Error(`approve failed: ${approved.status} ${JSON.stringify(approved.body)}`);
  const read = await request(server)
    .post(`/api/v1/bots/my/${botId}/token`)
    .set('Authorization', `Bearer ${await ctx.jwt(ownerId)}`);
  if (read.status !== 200) throw new Error(`token read failed: ${read.status} ${JSON.stringify(read.body)}`);
  return {
    botId,
    token: read.body.data.one_time_token as string,
    systemUserId: approved.body.data.system_user_id as string,
  };
}

/** POST /api/v1/bots/<method> with a bot token; returns the supertest response. */
export function callBot(ctx: BotTestContext, token: string, method: string, body: object = {}) {
  return request(ctx.app.getHttpServer())
    .post(`/api/v1/bots/${method}`)
    .set('Authorization', `Bearer ${token}`)
    .send(body);
}

/** A person's calls to the client API (`/api/v1/bots/client…`) with their account JWT. */
export function clientAs(ctx: BotTestContext, jwt: string) {
  const server = () => ctx.app.getHttpServer();
  const auth = `Bearer ${jwt}`;
  return {
    get: (path: string) => request(server()).get(`/api/v1/bots/client${path}`).set('Authorization', auth),
    post: (path: string, body: object) =>
      request(server()).post(`/api/v1/bots/client${path}`).set('Authorization', auth).send(body),
    patch: (path: string, body: object) =>
      request(server()).patch(`/api/v1/bots/client${path}`).set('Authorization', auth).send(body),
  };
}

/** A person's private chat with a bot, opened through the client API; returns the chat's id. */
export async function openPrivateChat(ctx: BotTestContext, jwt: string, botId: string): Promise<string> {
  const chat = await clientAs(ctx, jwt).post('/chats/private', { bot_id: botId }).expect(201);
  return chat.body.data.id as string;
}

export interface TestUpdate {
  update_seq: number;
  type: string;
  [member: string]: unknown;
}

/** getUpdates per bot from where the previous read stopped: each read confirms what the one before returned. */
export class UpdateReader {
  private readonly offsets = new Map<string, number>();

  constructor(private readonly ctx: BotTestContext) {}

  /** The offset the next read of this bot starts from. */
  offset(bot: { botId: string }): number {
    return this.offsets.get(bot.botId) ?? 0;
  }

  async drain(bot: { botId: string; token: string }): Promise<TestUpdate[]> {
    const offset = this.offset(bot);
    const res = await callBot(this.ctx, bot.token, 'getUpdates', { offset }).expect(200);
    const updates = res.body.data as TestUpdate[];
    if (updates.length > 0) this.offsets.set(bot.botId, updates[updates.length - 1].update_seq + 1);
    return updates;
  }
}

export interface TestFile {
  botId?: string;
  userId?: string;
  fileName?: string;
  mimeType?: string;
  fileSize?: number;
  width?: number | null;
  height?: number | null;
  duration?: number | null;
}

/** A stored file row, as the upload flow leaves it; returns its file_id. */
export async function insertFile(ctx: BotTestContext, file: TestFile): Promise<string> {
  const rows: Array<{ id: string }> = await ctx.app.get(DataSource).query(
    `INSERT INTO files (bot_id, user_id, file_name, mime_type, file_size, width, height, duration, storage_key)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
    [
      file.botId ?? null,
      file.userId ?? null,
      file.fileName ?? 'picture.jpg',
      file.mimeType ?? 'image/jpeg',
      file.fileSize ?? 1024,
      file.width ?? null,
      file.height ?? null,
      file.duration ?? null,
      `test/${Math.random().toString(36).slice(2)}`,
    ],
  );
  return rows[0].id;
}

/** Puts people into the user directory, as their first authenticated call would. */
export async function ensureUsers(ctx: BotTestContext, ...ids: string[]): Promise<void> {
  for (const id of ids) {
    await ctx.app
      .get(DataSource)
      .query(`INSERT INTO users (id, name) VALUES ($1, $1) ON CONFLICT (id) DO NOTHING`, [id]);
  }
}
