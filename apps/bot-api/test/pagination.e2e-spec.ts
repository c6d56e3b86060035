import type { OpenAPIObject } from '@nestjs/swagger';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { buildOpenApiDocument } from '@app/platform';
import {
  expectDocumentedPage,
  expectPageAnswer,
  OUT_OF_RANGE_PAGE_QUERIES,
  PagedListRoute,
  pagedListRoutes,
} from '@app/testing';
import { BOT_API_DOCS } from '../src/api-docs';
import { MESSAGES_PAGE_SIZE } from '../src/messages/dto/client-messages.dto';
import { ApprovedBot, BotTestContext, callBot, createApprovedBot, STAFF_ID, startBotApp } from './app-context';

jest.setTimeout(60_000);

describe('bot-api lists: one pagination scheme (page, pageSize → items, total, page, pageSize)', () => {
  let ctx: BotTestContext;
  let bot: ApprovedBot;
  let document: OpenAPIObject;
  let routes: PagedListRoute[];
  /** How to call each list route: its concrete path, its credential and its default page size. */
  let calls: Record<string, { path: string; auth: string; defaultPageSize: number }>;

  beforeAll(async () => {
    ctx = await startBotApp();
    document = buildOpenApiDocument(ctx.app, BOT_API_DOCS);
    routes = pagedListRoutes(document);
    const server = ctx.app.getHttpServer();
    const jwt = async (id: string, roles?: string[]) => `Bearer ${await ctx.jwt(id, id, roles)}`;
    // Two of everything, so a page of one leaves a second page.
    bot = await createApprovedBot(ctx, 'pg-dev', { username: 'paged_bot' });
    await createApprovedBot(ctx, 'pg-dev', { username: 'paged_bot_two' });
    await callBot(ctx, bot.token, 'setMyFriendRequestMode', { friend_request_mode: 'manual' }).expect(200);
    for (const user of ['pg-u1', 'pg-u2']) {
      await request(server)
        .post(`/api/v1/bots/client/bots/${bot.botId}/friend-requests`)
        .set('Authorization', await jwt(user))
        .send({})
        .expect(201);
    }
    const chat = await request(server)
      .post('/api/v1/bots/client/chats')
      .set('Authorization', await jwt('pg-u1'))
      .send({ type: 'group', title: 'Paged', member_ids: [bot.systemUserId] })
      .expect(201);
    for (const text of ['one', 'two']) {
      await callBot(ctx, bot.token, 'sendMessage', { chat_id: chat.body.data.id, text }).expect(201);
    }
    await ctx.app.get(DataSource).query(
      `INSERT INTO webhook_deliveries (bot_id, update_seq, update_id, update_type, payload, status)
       SELECT $1, g, gen_random_uuid(), 'message', '{}'::jsonb, 'pending' FROM generate_series(1, 2) AS g`,
      [bot.botId],
    );
    // Refused calls are audited too: two entries in the bot's virtual-member audit log.
    for (let n = 0; n < 2; n += 1) {
      await callBot(ctx, bot.token, 'listChatVirtualMembers', { chat_id: chat.body.data.id }).expect(403);
    }
    const owner = await jwt('pg-dev');
    calls = {
      '/api/v1/bots/my': { path: '/api/v1/bots/my', auth: owner, defaultPageSize: 20 },
      '/api/v1/bots/admin/bots': {
        path: '/api/v1/bots/admin/bots',
        auth: await jwt(STAFF_ID, ['platform_admin']),
        defaultPageSize: 20,
      },
      '/api/v1/bots/admin/bots/{botId}/virtual-member-audit': {
        path: `/api/v1/bots/admin/bots/${bot.botId}/virtual-member-audit`,
        auth: await jwt(STAFF_ID, ['platform_admin']),
        defaultPageSize: 20,
      },
      '/api/v1/bots/getFriendRequests': {
        path: '/api/v1/bots/getFriendRequests',
        auth: `Bearer ${bot.token}`,
        defaultPageSize: 20,
      },
      '/api/v1/bots/client/chats/{chatId}/messages': {
        path: `/api/v1/bots/client/chats/${chat.body.data.id}/messages`,
        auth: await jwt('pg-u1'),
        defaultPageSize: MESSAGES_PAGE_SIZE,
      },
      '/api/v1/bots/my/{botId}/deliveries': {
        path: `/api/v1/bots/my/${bot.botId}/deliveries`,
        auth: owner,
        defaultPageSize: 20,
      },
    };
  });
  afterAll(() => ctx.close());

  const get = (route: string, query: string) => {
    const call = calls[route];
    return request(ctx.app.getHttpServer()).get(`${call.path}?${query}`).set('Authorization', call.auth);
  };

  it('finds every list route from the OpenAPI document, and knows how to call each', () => {
    expect(routes.map((route) => route.path).sort()).toEqual(Object.keys(calls).sort());
  });

  it('documents every list with the page and pageSize query and the items, total, page, pageSize answer', () => {
    for (const route of routes) expectDocumentedPage(document, route);
  });

  it('answers every list with items, total, page and pageSize, honouring the page asked for', async () => {
    for (const { path } of routes) {
      const first = await get(path, 'page=1&pageSize=1').expect(200);
      expectPageAnswer(first.body.data, 1, 1);
      expect({ path, total: first.body.data.total }).toEqual({ path, total: 2 });
      const second = await get(path, 'page=2&pageSize=1').expect(200);
      expectPageAnswer(second.body.data, 2, 1);
      expect(second.body.data.items).toHaveLength(1);
      expect(second.body.data.items[0]).not.toEqual(first.body.data.items[0]);
      const beyond = await get(path, 'page=100000&pageSize=100').expect(200);
      expect({ path, items: beyond.body.data.items }).toEqual({ path, items: [] });
      const defaults = await get(path, '').expect(200);
      expectPageAnswer(defaults.body.data, 1, calls[path].defaultPageSize);
    }
  });

  it('still accepts the deprecated limit and page_size for one release, answering pageSize; pageSize wins', async () => {
    for (const { path } of routes) {
      expectPageAnswer((await get(path, 'limit=1').expect(200)).body.data, 1, 1);
      expectPageAnswer((await get(path, 'page_size=1').expect(200)).body.data, 1, 1);
      expectPageAnswer((await get(path, 'page_size=1&pageSize=2').expect(200)).body.data, 1, 2);
    }
  });

  it('pages the POST form of getFriendRequests by the same body fields', async () => {
    const res = await callBot(ctx, bot.token, 'getFriendRequests', { page: 2, pageSize: 1 }).expect(200);
    expectPageAnswer(res.body.data, 2, 1);
  });

  it.each(OUT_OF_RANGE_PAGE_QUERIES)(
    'defect 8: answers %s with 400 in the envelope on every list, never 500',
    async (query) => {
      for (const { path } of routes) {
        const res = await get(path, query);
        expect({ path, status: res.status, body: res.body }).toEqual({
          path,
          status: 400,
          body: { success: false, code: 'VALIDATION', message: expect.any(String) },
        });
      }
    },
  );

  it.each([{ page: 1e308 }, { page: '99999999999999999999' }, { page: 0 }, { pageSize: 101 }])(
    'defect 8: answers a getFriendRequests body of %j with 400 in the envelope, never 500',
    async (body) => {
      const res = await callBot(ctx, bot.token, 'getFriendRequests', body);
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'VALIDATION' });
    },
  );
});
