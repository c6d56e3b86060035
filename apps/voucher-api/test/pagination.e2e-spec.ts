import type { OpenAPIObject } from '@nestjs/swagger';
import request from 'supertest';
import { buildOpenApiDocument } from '@app/platform';
import {
  expectDocumentedPage,
  expectPageAnswer,
  OUT_OF_RANGE_PAGE_QUERIES,
  PagedListRoute,
  pagedListRoutes,
} from '@app/testing';
import { VOUCHER_API_DOCS } from '../src/api-docs';
import { seedApplication, SeededApplication, startVoucherApp, VoucherTestContext } from './app-context';
import { activeTemplate, API, bearer, expectError, GENEROUS_RATE_LIMITS, issueRequest } from './runtime-fixtures';

jest.setTimeout(60_000);

describe('voucher-api lists: one pagination scheme (page, pageSize → items, total, page, pageSize)', () => {
  let ctx: VoucherTestContext;
  let app: SeededApplication;
  let document: OpenAPIObject;
  let routes: PagedListRoute[];
  /** How to call each list route: its concrete path and the credential it takes. */
  let calls: Record<string, { path: string; auth: Record<string, string> }>;
  const holderId = 'pg-holder';

  beforeAll(async () => {
    ctx = await startVoucherApp(GENEROUS_RATE_LIMITS);
    app = await seedApplication(ctx, { ownerId: 'pg-owner' });
    document = buildOpenApiDocument(ctx.app, VOUCHER_API_DOCS);
    routes = pagedListRoutes(document);
    const owner = bearer(await ctx.jwt(app.ownerId));
    const holder = bearer(await ctx.jwt(holderId, holderId));
    const staff = bearer(await ctx.jwt('pg-staff', 'Staff', ['platform_admin']));
    calls = {
      [`${API}/applications/{id}/vouchers/allocations`]: {
        path: `${API}/applications/${app.applicationId}/vouchers/allocations`,
        auth: owner,
      },
      [`${API}/admin/templates`]: { path: `${API}/admin/templates`, auth: staff },
      [`${API}/holder/vouchers`]: { path: `${API}/holder/vouchers`, auth: holder },
      [`${API}/holder/backpack`]: { path: `${API}/holder/backpack`, auth: holder },
      [`${API}/holder/inbox`]: { path: `${API}/holder/inbox`, auth: holder },
    };
    // Two of everything the holder and the staff see, so a page of one leaves a second page.
    const templateId = await activeTemplate(ctx, app, { issue_limit: 0, per_user_limit: 10 });
    await activeTemplate(ctx, app, { issue_limit: 0 });
    const http = request(ctx.app.getHttpServer());
    await http.post(`${API}/holder/authorizations`).set(holder).send({ application_id: app.applicationId }).expect(200);
    for (let i = 0; i < 2; i++) {
      await issueRequest(ctx, app, { template_id: templateId, recipient_user_id: holderId }).expect(201);
    }
  });
  afterAll(() => ctx.close());

  const get = (route: string, query: string) => {
    const call = calls[route];
    return request(ctx.app.getHttpServer()).get(`${call.path}?${query}`).set(call.auth);
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
      const second = await get(path, 'page=2&pageSize=1').expect(200);
      expectPageAnswer(second.body.data, 2, 1);
      expect({ path, total: second.body.data.total }).toEqual({ path, total: first.body.data.total });
      const beyond = await get(path, 'page=100000&pageSize=100').expect(200);
      expect({ path, items: beyond.body.data.items }).toEqual({ path, items: [] });
      const defaults = await get(path, '').expect(200);
      expectPageAnswer(defaults.body.data, 1, 20);
    }
  });

  it('pages the staff review queue, which had no paging before', async () => {
    const first = await get(`${API}/admin/templates`, 'status=active&pageSize=1').expect(200);
    expect(first.body.data).toMatchObject({ total: 2, page: 1, pageSize: 1, items: [{ status: 'active' }] });
    const second = await get(`${API}/admin/templates`, 'status=active&page=2&pageSize=1').expect(200);
    expect(second.body.data.items[0].id).not.toBe(first.body.data.items[0].id);
  });

  it('still accepts the deprecated limit and page_size for one release, answering pageSize; pageSize wins', async () => {
    for (const { path } of routes) {
      expectPageAnswer((await get(path, 'limit=1').expect(200)).body.data, 1, 1);
      expectPageAnswer((await get(path, 'page_size=1').expect(200)).body.data, 1, 1);
      expectPageAnswer((await get(path, 'limit=1&pageSize=2').expect(200)).body.data, 1, 2);
    }
  });

  it.each(OUT_OF_RANGE_PAGE_QUERIES)(
    'defect 8: answers %s with 400 in the envelope on every list, never 500',
    async (query) => {
      for (const { path } of routes) {
        const res = await get(path, query);
        expect({ path, status: res.status }).toEqual({ path, status: 400 });
        expectError(res, 400, 'VALIDATION_FAILED');
      }
    },
  );
});
