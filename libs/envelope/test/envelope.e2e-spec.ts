import { Body, Controller, Get, HttpCode, INestApplication, Logger, Module, Post } from '@nestjs/common';
import { HttpFoundationModule } from '@app/platform';
import { createTestApp } from '@app/testing';
import { IsInt, IsString, Max, MinLength } from 'class-validator';
import request from 'supertest';
import { ApiError, botEnvelope, EnvelopeModule, EnvelopeStyle, ErrorCatalog, voucherEnvelope } from '../src';

class CreateThingDto {
  @IsString()
  @MinLength(2)
  name: string;

  @IsInt()
  @Max(10)
  count: number;
}

@Controller('things')
class ThingsController {
  @Post()
  create(@Body() body: CreateThingDto) {
    return { id: 't1', ...body };
  }

  @Post('check')
  @HttpCode(200)
  check() {
    return { ok: true };
  }

  @Get('conflict')
  conflict() {
    throw new ApiError(409, 'THING_TAKEN', 'That thing is taken');
  }

  @Get('crash')
  crash() {
    throw new Error('database password is hunter2');
  }
}

function moduleFor(style: EnvelopeStyle) {
  @Module({
    imports: [EnvelopeModule.forRoot(style), HttpFoundationModule.forRoot({ bodyLimit: '1kb' })],
    controllers: [ThingsController],
  })
  class TestModule {}
  return TestModule;
}

describe('voucher envelope', () => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await createTestApp(moduleFor(voucherEnvelope));
  });
  afterAll(() => app.close());

  it('wraps a created resource with success, code 201, data and meta', async () => {
    const res = await request(app.getHttpServer()).post('/things').send({ name: 'lamp', count: 2 }).expect(201);
    expect(res.body).toEqual({
      success: true,
      code: 201,
      message: 'Created',
      data: { id: 't1', name: 'lamp', count: 2 },
      meta: {
        requestId: res.headers['x-request-id'],
        timestamp: expect.any(String),
        duration: expect.stringMatching(/^\d+ms$/),
      },
    });
  });

  it('mirrors an explicit 200 status in the body code', async () => {
    const res = await request(app.getHttpServer()).post('/things/check').expect(200);
    expect(res.body).toMatchObject({ success: true, code: 200, message: 'OK', data: { ok: true } });
  });

  it('keeps a caller-supplied UUID request id', async () => {
    const id = '0b0f4c6e-6b1a-4c1e-9e53-3b8d6f1c2a7d';
    const res = await request(app.getHttpServer()).post('/things/check').set('X-Request-Id', id).expect(200);
    expect(res.body.meta.requestId).toBe(id);
  });

  it('lists every invalid field of a validation failure in error.details', async () => {
    const res = await request(app.getHttpServer()).post('/things').send({ name: 'x', count: 11 }).expect(400);
    expect(res.body).toMatchObject({ success: false, code: 400, error: { code: 'VALIDATION_FAILED' } });
    const fields = res.body.error.details.map((d: { field: string }) => d.field).sort();
    expect(fields).toEqual(['count', 'name']);
  });

  it('rejects an unknown body field such as application_id instead of ignoring it', async () => {
    const res = await request(app.getHttpServer())
      .post('/things')
      .send({ name: 'lamp', count: 1, application_id: 'other' })
      .expect(400);
    expect(res.body.error.details).toEqual([{ field: 'application_id', problem: 'is not a known field' }]);
  });

  it('refuses a NUL character anywhere in the input with 400 naming its path, on every route', async () => {
    const res = await request(app.getHttpServer())
      .post('/things')
      .set('Content-Type', 'application/json')
      .send('{"name": "la\\u0000mp", "count": 1}')
      .expect(400);
    expect(res.body.error.details).toEqual([{ field: 'body.name', problem: 'contains a NUL character' }]);
  });

  it('renders an unknown route as 404 NOT_FOUND', async () => {
    const res = await request(app.getHttpServer()).get('/nowhere').expect(404);
    expect(res.body).toMatchObject({ success: false, code: 404, error: { code: 'NOT_FOUND' } });
  });

  it('renders malformed JSON as 400 without echoing parser internals', async () => {
    const res = await request(app.getHttpServer())
      .post('/things')
      .set('Content-Type', 'application/json')
      .send('{"name": "lamp",')
      .expect(400);
    expect(res.body).toMatchObject({
      success: false,
      code: 400,
      message: 'Malformed JSON body',
      error: { code: 'VALIDATION_FAILED' },
    });
  });

  it('renders a body over the size limit as 413', async () => {
    const res = await request(app.getHttpServer())
      .post('/things')
      .send({ name: 'x'.repeat(2000), count: 1 })
      .expect(413);
    expect(res.body).toMatchObject({ success: false, code: 413, error: { code: 'PAYLOAD_TOO_LARGE' } });
  });

  it('renders a non-JSON content type as 415', async () => {
    const res = await request(app.getHttpServer())
      .post('/things')
      .set('Content-Type', 'text/plain')
      .send('name=lamp')
      .expect(415);
    expect(res.body).toMatchObject({ success: false, code: 415, error: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
  });

  it('keeps the business code of a domain error', async () => {
    const res = await request(app.getHttpServer()).get('/things/conflict').expect(409);
    expect(res.body).toMatchObject({
      success: false,
      code: 409,
      message: 'That thing is taken',
      error: { code: 'THING_TAKEN' },
    });
  });

  it('hides the message and stack of an uncaught error behind a generic 500', async () => {
    const res = await request(app.getHttpServer()).get('/things/crash').expect(500);
    expect(res.body).toMatchObject({ success: false, code: 500, error: { code: 'INTERNAL_ERROR' } });
    expect(res.text).not.toContain('hunter2');
    expect(res.text).not.toContain('at ');
  });

  it('defect 8: tells a caller to retry with the same Idempotency-Key only when it sent one', async () => {
    const plain = await request(app.getHttpServer()).get('/things/crash').expect(500);
    expect(plain.body.message).toBe('Internal server error; retry later');
    const keyed = await request(app.getHttpServer()).get('/things/crash').set('Idempotency-Key', 'k-1').expect(500);
    expect(keyed.body.message).toBe('Internal server error; retry with the same Idempotency-Key and body');
  });
});

describe('bot envelope', () => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await createTestApp(moduleFor(botEnvelope));
  });
  afterAll(() => app.close());

  it('wraps success as { success: true, data } with an X-Service-Request-Id UUID', async () => {
    const res = await request(app.getHttpServer()).post('/things/check').expect(200);
    expect(res.body).toEqual({ success: true, data: { ok: true } });
    expect(res.headers['x-service-request-id']).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
  });

  it('renders a validation failure as { success: false, code: VALIDATION, message } naming each field', async () => {
    const res = await request(app.getHttpServer()).post('/things').send({ count: 'many' }).expect(400);
    expect(Object.keys(res.body).sort()).toEqual(['code', 'message', 'success']);
    expect(res.body.code).toBe('VALIDATION');
    expect(res.body.message).toContain('name:');
    expect(res.body.message).toContain('count:');
  });

  it('renders unknown routes, oversized bodies and crashes with string codes', async () => {
    const server = app.getHttpServer();
    expect((await request(server).get('/nowhere').expect(404)).body.code).toBe('NOT_FOUND');
    expect(
      (
        await request(server)
          .post('/things')
          .send({ name: 'x'.repeat(2000) })
          .expect(413)
      ).body.code,
    ).toBe('PAYLOAD_TOO_LARGE');
    const crash = await request(server).get('/things/crash').expect(500);
    expect(crash.body).toEqual({ success: false, code: 'INTERNAL_ERROR', message: expect.any(String) });
    expect(crash.text).not.toContain('hunter2');
  });
});

describe('envelope with an error registry', () => {
  const errors = ErrorCatalog.define('VALIDATION_FAILED', {
    VALIDATION_FAILED: { status: 400, message: 'invalid' },
  });
  let app: INestApplication;
  beforeAll(async () => {
    @Module({
      imports: [EnvelopeModule.forRoot(voucherEnvelope, errors), HttpFoundationModule.forRoot({ bodyLimit: '1kb' })],
      controllers: [ThingsController],
    })
    class RegistryModule {}
    app = await createTestApp(RegistryModule);
  });
  afterAll(() => app.close());

  it('logs an answered code that the registry lacks as a defect, and still answers it', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      const res = await request(app.getHttpServer()).get('/things/conflict').expect(409);
      expect(res.body.error.code).toBe('THING_TAKEN');
      expect(logged).toHaveBeenCalledWith(
        expect.objectContaining({ code: 'THING_TAKEN' }),
        'error code missing from the registry',
      );
      logged.mockClear();
      await request(app.getHttpServer()).get('/nowhere').expect(404);
      expect(logged).not.toHaveBeenCalled();
    } finally {
      logged.mockRestore();
    }
  });
});
