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
