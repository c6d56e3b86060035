import {
  Controller,
  Get,
  INestApplication,
  MiddlewareConsumer,
  Module,
  NestModule,
  Post,
  Put,
  RequestMethod,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { documentedRoutes, registeredRoutes, toOpenApiPath } from './http-routes';

@Controller('api/things')
class ThingsController {
  @Get(':thingId/parts/:partId')
  part(): void {}

  @Post()
  create(): void {}

  @Put(':thingId')
  replace(): void {}
}

// Route-bound middleware for every method, as the apps mount their body parser and metrics.
@Module({ controllers: [ThingsController] })
class ThingsModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply((_req: unknown, _res: unknown, next: () => void) => next())
      .forRoutes({ path: '{*path}', method: RequestMethod.ALL });
  }
}

describe('registeredRoutes', () => {
  let app: INestApplication;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [ThingsModule] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
  });

  afterAll(() => app.close());

  it('lists the controller endpoints Express serves, in OpenAPI path form, without the all-method middleware', () => {
    const express = app.getHttpAdapter().getInstance() as { router: { stack: Array<{ route?: unknown }> } };
    expect(express.router.stack.filter((layer) => layer.route).length).toBeGreaterThan(3);
    expect(registeredRoutes(app)).toEqual([
      { method: 'get', path: '/api/things/{thingId}/parts/{partId}' },
      { method: 'post', path: '/api/things' },
      { method: 'put', path: '/api/things/{thingId}' },
    ]);
  });

  it('converts Express parameters and reads operations of a document', () => {
    expect(toOpenApiPath('/a/:id/b/:other_id')).toBe('/a/{id}/b/{other_id}');
    expect(toOpenApiPath('/files/bot:token/*path')).toBe('/files/bot{token}/{path}');
    expect(documentedRoutes({ paths: { '/a/{id}': { get: {}, parameters: [] }, '/b': { post: {} } } })).toEqual([
      { method: 'get', path: '/a/{id}' },
      { method: 'post', path: '/b' },
    ]);
  });
});
