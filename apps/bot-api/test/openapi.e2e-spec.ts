import type { INestApplication } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import request from 'supertest';
import { API_DOCS_PATH, API_SECURITY, setupOpenApi } from '@app/platform';
import { documentedRoutes, HttpRoute, registeredRoutes, ServiceTestContext, startServiceTestApp } from '@app/testing';
import { BOT_API_DOCS } from '../src/api-docs';
import { AppModule } from '../src/app.module';
import { BotConfig } from '../src/config/bot.config';
import { botMigrations } from '../src/database/migrations';

const key = (route: HttpRoute) => `${route.method.toUpperCase()} ${route.path}`;
// SwaggerModule mounts the UI, its assets and the JSON itself; they are the document, not part of it.
const isDocsRoute = (route: HttpRoute) =>
  route.path === `/${API_DOCS_PATH}` ||
  route.path === `/${API_DOCS_PATH}-json` ||
  route.path.startsWith(`/${API_DOCS_PATH}/`);

describe('bot-api OpenAPI document', () => {
  let ctx: ServiceTestContext<BotConfig>;
  let app: INestApplication;
  let document: OpenAPIObject;

  beforeAll(async () => {
    ctx = await startServiceTestApp({
      service: 'bot',
      migrations: botMigrations,
      schema: BotConfig,
      module: (config) => AppModule.forRoot(config),
      // As main.ts does through runHttpApp's afterCreate.
      beforeInit: (created) => {
        document = setupOpenApi(created, BOT_API_DOCS);
      },
    });
    app = ctx.app;
  });

  afterAll(() => ctx?.close());

  it('documents every route the running app registers, and no route it does not serve', () => {
    const registered = registeredRoutes(app)
      .filter((route) => !isDocsRoute(route))
      .map(key);
    const documented = documentedRoutes(document).map(key);
    expect(registered.length).toBeGreaterThan(3);
    expect(registered.filter((route) => !documented.includes(route))).toEqual([]);
    expect(documented.filter((route) => !registered.includes(route))).toEqual([]);
  });

  it('serves the same document at /docs-json and the UI at /docs', async () => {
    const json = await request(app.getHttpServer()).get(`/${API_DOCS_PATH}-json`).expect(200);
    expect(json.body.openapi).toMatch(/^3\./);
    expect(Object.keys(json.body.paths).sort()).toEqual(Object.keys(document.paths).sort());
    const ui = await request(app.getHttpServer()).get(`/${API_DOCS_PATH}`).expect(200);
    expect(ui.headers['content-type']).toMatch(/text\/html/);
  });

  it('describes the account JWT and sbot_ bot token schemes and no application token', () => {
    const schemes = document.components?.securitySchemes ?? {};
    expect(Object.keys(schemes).sort()).toEqual([API_SECURITY.botToken, API_SECURITY.accountJwt].sort());
    expect(schemes[API_SECURITY.botToken]).toMatchObject({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'sbot_<base62>',
    });
    expect(schemes[API_SECURITY.accountJwt]).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  });

  it('documents each operation with the scheme its credential guard accepts, and uses every declared scheme', () => {
    const used = new Set(
      Object.values(document.paths)
        .flatMap((item) => Object.values(item as Record<string, { security?: Array<Record<string, unknown>> }>))
        .flatMap((operation) => (operation.security ?? []).flatMap((requirement) => Object.keys(requirement))),
    );
    expect([...used].sort()).toEqual(Object.keys(document.components?.securitySchemes ?? {}).sort());
  });

  it('wraps API responses in the bot envelope and errors in the error envelope with their codes', () => {
    const schemas = document.components?.schemas ?? {};
    expect(schemas.SuccessEnvelope).toMatchObject({ required: ['success', 'data'] });
    expect(schemas.ErrorEnvelope).toMatchObject({ required: ['success', 'code', 'message'] });
    const apiOperations = Object.entries(document.paths)
      .filter(([path]) => path.startsWith('/api/'))
      .flatMap(([, item]) => Object.values(item as Record<string, { responses: Record<string, any> }>));
    expect(apiOperations.length).toBeGreaterThan(0);
    for (const operation of apiOperations) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const schema = JSON.stringify(response.content?.['application/json']?.schema);
        if (Number(status) < 300) expect(schema).toContain('#/components/schemas/SuccessEnvelope');
        if (Number(status) >= 400) {
          expect(schema).toContain('#/components/schemas/ErrorEnvelope');
          expect(response['x-error-codes'].length).toBeGreaterThan(0);
        }
      }
    }
  });

  it('leaves health and metrics outside the envelope and open without credentials', () => {
    expect(document.paths['/health/ready'].get?.security).toEqual([]);
    expect(document.paths['/health/ready'].get?.responses['503']).toBeDefined();
    const metrics = document.paths['/metrics'].get?.responses['200'] as { content?: object } | undefined;
    expect(Object.keys(metrics?.content ?? {})).toEqual(['text/plain']);
  });
});
