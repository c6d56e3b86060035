import type { INestApplication } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { API_DOCS_PATH, API_SECURITY, setupOpenApi } from '@app/platform';
import {
  expectDocsServed,
  expectEnvelopedResponses,
  expectEveryRouteDocumented,
  expectHealthAndMetricsOutsideEnvelope,
  expectSecuritySchemesUsed,
  ServiceTestContext,
  startServiceTestApp,
} from '@app/testing';
import { BOT_API_DOCS } from '../src/api-docs';
import { AppModule } from '../src/app.module';
import { BotConfig } from '../src/config/bot.config';
import { botMigrations } from '../src/database/migrations';

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
    expectEveryRouteDocumented(app, document, API_DOCS_PATH);
  });

  it('serves the same document at /docs-json and the UI at /docs', async () => {
    await expectDocsServed(app, document, API_DOCS_PATH);
  });

  it('describes the account JWT, sbot_ bot token and internal service token schemes and no application token', () => {
    const schemes = document.components?.securitySchemes ?? {};
    expect(Object.keys(schemes).sort()).toEqual(
      [API_SECURITY.botToken, API_SECURITY.accountJwt, API_SECURITY.serviceToken].sort(),
    );
    expect(schemes[API_SECURITY.botToken]).toMatchObject({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'sbot_<base62>',
    });
    expect(schemes[API_SECURITY.accountJwt]).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  });

  it('tags the internal routes "internal", takes only the service token there, and uses that token nowhere else', () => {
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.values(item as Record<string, { tags?: string[]; security?: Array<Record<string, unknown>> }>).map(
        (operation) => ({ path, tags: operation.tags ?? [], schemes: (operation.security ?? []).flatMap(Object.keys) }),
      ),
    );
    const internal = operations.filter((op) => op.path.startsWith('/api/v1/bots/internal/'));
    expect(internal.map((op) => op.path)).toEqual(['/api/v1/bots/internal/files/{fileId}']);
    for (const op of internal) {
      expect(op.tags).toEqual(['internal']);
      expect(op.schemes).toEqual([API_SECURITY.serviceToken]);
    }
    const elsewhere = operations.filter((op) => !op.path.startsWith('/api/v1/bots/internal/'));
    expect(
      elsewhere.filter((op) => op.schemes.includes(API_SECURITY.serviceToken) || op.tags.includes('internal')),
    ).toEqual([]);
  });

  it('documents each operation with the scheme its credential guard accepts, and uses every declared scheme', () => {
    expectSecuritySchemesUsed(document);
  });

  it('wraps API responses in the bot envelope and errors in the error envelope with their codes', () => {
    const schemas = document.components?.schemas ?? {};
    expect(schemas.SuccessEnvelope).toMatchObject({ required: ['success', 'data'] });
    expect(schemas.ErrorEnvelope).toMatchObject({ required: ['success', 'code', 'message'] });
    expectEnvelopedResponses(document);
  });

  it('leaves health and metrics outside the envelope and open without credentials', () => {
    expectHealthAndMetricsOutsideEnvelope(document);
  });
});
