import pino from 'pino';
import { Writable } from 'node:stream';
import express from 'express';
import { PinoLogger } from 'nestjs-pino';
import { __resetOutOfContextForTests } from 'nestjs-pino/PinoLogger';
import request from 'supertest';
import { REDACTED_PATHS, requestLogMiddleware, requestLogRecord, rootLogger, ServiceLogger } from './logging';

/** A stream that keeps what it is given, in the order given. */
function sink() {
  const written: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      written.push(chunk.toString());
      done();
    },
  });
  return { stream, written, lines: () => written.join('').split('\n').filter(Boolean) };
}

function capture() {
  const { stream, written } = sink();
  return { logger: pino({ redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, stream), lines: written };
}

describe('log redaction', () => {
  it('removes the Authorization header and cookies from request lines', () => {
    const { logger, lines } = capture();
    logger.info({ req: { headers: { authorization: 'Bearer sop_secret', cookie: 'sid=1', host: 'x' } } }, 'request');
    expect(lines.join('')).not.toContain('sop_secret');
    expect(lines.join('')).not.toContain('sid=1');
    expect(JSON.parse(lines[0]).req.headers.host).toBe('x');
  });

  it('removes token-like fields wherever a logged object carries them', () => {
    const { logger, lines } = capture();
    logger.info({
      bot: { token: 'sbot_x', one_time_token: 'sbot_y', secret_token: 'whsec' },
      voucher: { qr_token: 'q', redeem_code: 'ABC234' },
    });
    const line = lines.join('');
    for (const secret of ['sbot_x', 'sbot_y', 'whsec', 'ABC234']) expect(line).not.toContain(secret);
  });

  it('logs only an allow-list of request headers and the path without its query string', () => {
    const record = requestLogRecord({
      id: 'r1',
      method: 'PUT',
      url: '/files/upload/k?signature=abc',
      headers: {
        authorization: 'Bearer sop_secret',
        cookie: 'sid=1',
        'user-agent': 'curl/8',
        'x-service-signature': 's',
      },
    });
    expect(record).toEqual({ id: 'r1', method: 'PUT', url: '/files/upload/k', headers: { 'user-agent': 'curl/8' } });
  });

  it('logs a Telegram-style path without the bot token it carries, at the root and under /telegram', () => {
    const token = 'sbot_' + 'a'.repeat(43);
    const urls = [
      `/telegram/bot${token}/sendMessage`,
      `/telegram/file/bot${token}/photos/x.jpg`,
      `/bot${token}/sendMessage?chat_id=1`,
      `/file/bot${token}/photos/x.jpg`,
      `/BOT${token}/getMe`,
    ];
    for (const url of urls) {
      const record = requestLogRecord({ id: 'r2', method: 'POST', url, headers: {} });
      expect(record.url).not.toContain(token);
      expect(record.url).toMatch(/^(\/telegram)?\/(file\/)?bot\[redacted\]\//i);
    }
  });

  it('logs the token of any spelling of a Telegram-style path redacted (defect 2: /Telegram/BOT<token> logged it)', () => {
    const token = 'sbot_' + 'b'.repeat(43);
    for (const url of [
      `/Telegram/bot${token}/getMe`,
      `/TELEGRAM/BOT${token}/getMe`,
      `//telegram//file/Bot${token}/x.jpg`,
      `/bot${token}/getMe`,
      `/api/v1/bots/whatever/${token}`,
    ]) {
      const record = requestLogRecord({ id: 'r3', method: 'GET', url, headers: {} });
      expect({ url, logged: record.url.includes(token) }).toEqual({ url, logged: false });
    }
  });
});

describe('request log line', () => {
  function app() {
    const { logger, lines } = capture();
    const server = express();
    server.use(requestLogMiddleware(logger));
    server.get('/health', (_req, res) => void res.send('ok'));
    server.get('/things/:id', (req, res) => void res.status(req.params.id === 'broken' ? 500 : 200).send('{}'));
    return { server, lines: () => lines.map((line) => JSON.parse(line)) };
  }

  it('writes one line per request with its id, method, path without query, status and latency', async () => {
    const { server, lines } = app();
    const answer = await request(server)
      .get('/things/1?signature=abc')
      .set('Authorization', 'Bearer sop_secret')
      .set('User-Agent', 'curl/8');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines()).toHaveLength(1);
    const [line] = lines();
    expect(line).toMatchObject({
      level: 30,
      msg: 'request completed',
      req: { method: 'GET', url: '/things/1', headers: { 'user-agent': 'curl/8' } },
      res: { statusCode: answer.status },
    });
    expect(line.req.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof line.responseTime).toBe('number');
    expect(JSON.stringify(line)).not.toContain('sop_secret');
  });

  it('logs a 5xx at error level and leaves health checks out', async () => {
    const { server, lines } = app();
    await request(server).get('/health');
    await request(server).get('/things/broken');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines()).toHaveLength(1);
    expect(lines()[0]).toMatchObject({ level: 50, msg: 'request errored', res: { statusCode: 500 } });
  });
});

describe('the start-up lines of Nest', () => {
  // nestjs-pino keeps the first root logger it is given for the whole process.
  beforeEach(() => __resetOutOfContextForTests());
  afterAll(() => __resetOutOfContextForTests());

  it("keeps Nest's route mappings and module lines out of the info level, in production's JSON too", () => {
    const { stream, lines } = sink();
    const logger = new ServiceLogger(
      new PinoLogger({
        pinoHttp: { logger: rootLogger('bot-api', 'info', stream) },
      }),
      {},
    );
    logger.log('Mapped {/api/v1/bots/my, POST} route', 'RouterExplorer');
    logger.log('BotsController {/api/v1/bots}:', 'RoutesResolver');
    logger.log('AppModule dependencies initialized', 'InstanceLoader');
    logger.log('Starting Nest application...', 'NestFactory');
    logger.log('listening on 127.0.0.1, port 3002', 'Bootstrap');
    logger.warn('warm-up cut off', 'WarmUp');
    expect(lines().map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({
        level: 30,
        name: 'bot-api',
        context: 'Bootstrap',
        msg: 'listening on 127.0.0.1, port 3002',
      }),
      expect.objectContaining({ level: 40, context: 'WarmUp', msg: 'warm-up cut off' }),
    ]);

    __resetOutOfContextForTests();
    const verbose = sink();
    const debugLogger = new ServiceLogger(
      new PinoLogger({
        pinoHttp: { logger: rootLogger('bot-api', 'debug', verbose.stream) },
      }),
      {},
    );
    debugLogger.log('Mapped {/api/v1/bots/my, POST} route', 'RouterExplorer');
    expect(JSON.parse(verbose.lines()[0])).toMatchObject({ level: 20, context: 'RouterExplorer' });
  });
});
