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
import { VOUCHER_API_DOCS } from '../src/api-docs';
import { AppModule } from '../src/app.module';
import { VoucherConfig } from '../src/config/voucher.config';
import { voucherMigrations } from '../src/database/migrations';

describe('voucher-api OpenAPI document', () => {
  let ctx: ServiceTestContext<VoucherConfig>;
  let app: INestApplication;
  let document: OpenAPIObject;

  beforeAll(async () => {
    ctx = await startServiceTestApp({
      service: 'voucher',
      migrations: voucherMigrations,
      schema: VoucherConfig,
      module: (config) => AppModule.forRoot(config),
      // As main.ts does through runHttpApp's afterCreate.
      beforeInit: (created) => {
        document = setupOpenApi(created, VOUCHER_API_DOCS);
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

  it('describes the account JWT and sop_ application token schemes and no bot token', () => {
    const schemes = document.components?.securitySchemes ?? {};
    expect(Object.keys(schemes).sort()).toEqual([API_SECURITY.appToken, API_SECURITY.accountJwt].sort());
    expect(schemes[API_SECURITY.appToken]).toMatchObject({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'sop_<base62>',
    });
    expect(schemes[API_SECURITY.accountJwt]).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  });

  it('documents each operation with the scheme its credential guard accepts, and uses every declared scheme', () => {
    expectSecuritySchemesUsed(document);
  });

  it('wraps API responses in the voucher envelope and errors in the error envelope with their codes', () => {
    const schemas = document.components?.schemas ?? {};
    expect(schemas.SuccessEnvelope).toMatchObject({ required: ['success', 'code', 'message', 'data', 'meta'] });
    expect(schemas.ErrorEnvelope).toMatchObject({ required: ['success', 'code', 'message', 'error', 'meta'] });
    expectEnvelopedResponses(document);
  });

  it('leaves health and metrics outside the envelope and open without credentials', () => {
    expectHealthAndMetricsOutsideEnvelope(document);
  });
});
