import express from 'express';
import type { NextFunction, Request, Response } from 'express';
import type { AddressInfo } from 'node:net';
import { request as httpRequest, type Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import { ApiError } from '@app/envelope';
import { jsonBodyMiddleware, type RequestWithRawBody } from '../src/json-body';

/**
 * The JSON body middleware on a real socket: a body with a Content-Length is read directly, any other
 * (chunked, compressed, another charset, over the limit) through body-parser, with the same answers.
 */
describe('jsonBodyMiddleware', () => {
  let server: Server;
  let port: number;

  beforeAll(async () => {
    const app = express();
    const parse = jsonBodyMiddleware('1kb');
    app.use((req: Request, res: Response, next: NextFunction) => {
      parse(req, res, next).catch(next);
    });
    app.post('/echo', (req: Request, res: Response) => {
      res.json({ body: req.body, raw: (req as RequestWithRawBody).rawBody?.toString('utf8') });
    });
    app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
      const status = error instanceof ApiError ? error.status : 500;
      res.status(status).json({ message: (error as Error).message });
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  function post(
    body: Buffer,
    headers: Record<string, string>,
  ): Promise<{ status: number; json: { body?: unknown; raw?: string; message?: string } }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest({ port, host: '127.0.0.1', method: 'POST', path: '/echo', headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString()) }),
        );
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  const json = (text: string, type = 'application/json') =>
    post(Buffer.from(text), { 'content-type': type, 'content-length': String(Buffer.byteLength(text)) });

  it('parses a body of known length and keeps its raw bytes', async () => {
    const res = await json('{"credential":{"type":"qr_token","value":"v"}}', 'application/json; charset=UTF-8');
    expect(res).toEqual({
      status: 200,
      json: {
        body: { credential: { type: 'qr_token', value: 'v' } },
        raw: '{"credential":{"type":"qr_token","value":"v"}}',
      },
    });
  });

  it('drops a leading byte order mark and accepts an array', async () => {
    expect((await json('\uFEFF[1, 2]')).json.body).toEqual([1, 2]);
  });

  it('refuses malformed JSON and a bare JSON scalar with 400, without parser internals', async () => {
    expect(await json('{"a": ')).toEqual({ status: 400, json: { message: 'Malformed JSON body' } });
    expect(await json('"text"')).toEqual({ status: 400, json: { message: 'Malformed JSON body' } });
    expect(await json('   ')).toEqual({ status: 400, json: { message: 'Malformed JSON body' } });
  });

  it('refuses a body over the limit with 413', async () => {
    expect((await json(JSON.stringify({ a: 'x'.repeat(2000) }))).status).toBe(413);
  });

  it('reads chunked and gzip-compressed bodies through body-parser alike', async () => {
    const chunked = await post(Buffer.from('{"a":1}'), {
      'content-type': 'application/json',
      'transfer-encoding': 'chunked',
    });
    expect(chunked).toEqual({ status: 200, json: { body: { a: 1 }, raw: '{"a":1}' } });
    const zipped = gzipSync('{"b":2}');
    const compressed = await post(zipped, {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
      'content-length': String(zipped.length),
    });
    expect(compressed.json.body).toEqual({ b: 2 });
  });

  it('refuses a charset other than UTF-8 as body-parser does', async () => {
    expect((await json('{"a":1}', 'application/json; charset=latin1')).status).toBe(415);
  });
});
