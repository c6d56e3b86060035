import {
  Controller,
  Get,
  INestApplication,
  MiddlewareConsumer,
  Module,
  NestModule,
  Post,
  RequestMethod,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { NextFunction, Request, Response } from 'express';
import request from 'supertest';
import { ApiExpressAdapter } from './api-express-adapter';
import { configureHttpApp, httpAdapter } from './bootstrap';

@Controller('items')
class ItemsController {
  @Get(':id')
  get(): { id: number } {
    return { id: 7 };
  }

  @Post()
  create(): string {
    return 'made';
  }
}

const seen: string[] = [];

@Module({ controllers: [ItemsController] })
class ItemsModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply((req: Request, _res: Response, next: NextFunction) => {
        seen.push(req.originalUrl);
        next();
      })
      .forRoutes({ path: '{*path}', method: RequestMethod.ALL });
    consumer
      .apply((req: Request, res: Response, next: NextFunction) => {
        res.setHeader('X-Items-Only', 'yes');
        next();
      })
      .forRoutes({ path: 'items/{*rest}', method: RequestMethod.GET });
  }
}

async function bootWith(adapter: ApiExpressAdapter): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({ imports: [ItemsModule] }).compile();
  const app = moduleRef.createNestApplication(adapter, { logger: false });
  configureHttpApp(app);
  await app.init();
  return app;
}

describe('ApiExpressAdapter', () => {
  let app: INestApplication;
  let adapter: ApiExpressAdapter;

  beforeAll(async () => {
    adapter = httpAdapter();
    adapter.renderSuccessWith((req, res, status, result) => {
      res.type('application/json');
      return JSON.stringify({ status, path: req.path, result });
    });
    app = await bootWith(adapter);
  });

  afterAll(async () => {
    await app.close();
  });

  it('binds a middleware for every path and method as a path-less layer, not as a catch-all route', () => {
    const stack = (adapter.getInstance() as { router: { stack: { route?: { path: string } }[] } }).router.stack;
    expect(stack.filter((layer) => layer.route?.path === '/{*path}')).toHaveLength(0);
    // A middleware bound to some paths only keeps Nest's own registration as a route.
    expect(stack.some((layer) => layer.route?.path === '/items/{*rest}')).toBe(true);
  });

  it('runs that middleware for matched routes, unknown paths and every method', async () => {
    seen.length = 0;
    await request(app.getHttpServer()).get('/items/1').expect(200);
    await request(app.getHttpServer()).post('/items').expect(201);
    await request(app.getHttpServer()).delete('/nowhere/at/all').expect(404);
    expect(seen).toEqual(['/items/1', '/items', '/nowhere/at/all']);
  });

  it('keeps a middleware bound to some paths to those paths', async () => {
    const matched = await request(app.getHttpServer()).get('/items/1').expect(200);
    expect(matched.headers['x-items-only']).toBe('yes');
    const other = await request(app.getHttpServer()).post('/items').expect(201);
    expect(other.headers['x-items-only']).toBeUndefined();
  });

  it('hands every handler result, with the status Nest sends, to the installed renderer', async () => {
    const got = await request(app.getHttpServer()).get('/items/1').expect(200);
    expect(got.headers['content-type']).toMatch(/^application\/json/);
    expect(got.body).toEqual({ status: 200, path: '/items/1', result: { id: 7 } });
    const made = await request(app.getHttpServer()).post('/items').expect(201);
    expect(made.body).toEqual({ status: 201, path: '/items', result: 'made' });
  });

  it('sends results unchanged while no renderer is installed', async () => {
    const plain = await bootWith(httpAdapter());
    try {
      const got = await request(plain.getHttpServer()).get('/items/1').expect(200);
      expect(got.body).toEqual({ id: 7 });
    } finally {
      await plain.close();
    }
  });
});
