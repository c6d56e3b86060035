import { Writable } from 'node:stream';
import express from 'express';
import request from 'supertest';
import { requestLogMiddleware, rootLogger } from '@app/platform';
import { readableLine, readableLogs } from './readable-logs';

/** The apps' own JSON lines, as the launcher receives them: behind a `[name] ` prefix. */
function appLines() {
  const written: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      written.push(`[voucher-api] ${chunk.toString()}`);
      done();
    },
  });
  return { logger: rootLogger('voucher-api', 'info', stream), written };
}

/** What the terminal gets from the launcher's stream, given the chunks in order. */
async function shown(chunks: string[]): Promise<string[]> {
  let text = '';
  const terminal = new Writable({
    write(chunk, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  const stream = readableLogs(terminal);
  for (const chunk of chunks) stream.write(chunk);
  await new Promise((resolveEnd) => stream.end(resolveEnd));
  return text.split('\n').slice(0, -1);
}

const TIME = '\\[\\d\\d:\\d\\d:\\d\\d\\]';

describe("npm start's view of the apps' logs", () => {
  it('shows a request as method, path, status and time, and a warning as context and message, one line each', async () => {
    const { logger, written } = appLines();
    const server = express();
    server.use(requestLogMiddleware(logger));
    server.get('/things/:id', (_req, res) => void res.status(404).send('{}'));
    await request(server).get('/things/7?signature=abc').set('Authorization', 'Bearer sop_secret');
    await new Promise((resolve) => setImmediate(resolve));
    logger.warn({ context: 'WarmUp', bot: { token: 'sbot_secret' } }, 'warm-up cut off');

    const lines = await shown(written);
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^\\[voucher-api\\] ${TIME} INFO: GET /things/7 → 404 in \\d+ ms$`)),
      expect.stringMatching(
        new RegExp(
          `^\\[voucher-api\\] ${TIME} WARN: WarmUp: warm-up cut off \\{"bot":\\{"token":"\\[redacted\\]"\\}\\}$`,
        ),
      ),
    ]);
    expect(lines.join('\n')).not.toMatch(/sop_secret|sbot_secret|signature/);
  });

  it('shows an error with its stack, and leaves other lines and broken JSON as they are', async () => {
    const { logger, written } = appLines();
    logger.error({ context: 'ExceptionsHandler', err: new Error('boom') }, 'boom');
    const [first, ...rest] = await shown(written);
    expect(first).toMatch(new RegExp(`^\\[voucher-api\\] ${TIME} ERROR: ExceptionsHandler: boom`));
    expect(rest.join('\n')).toContain('Error: boom');
    for (const line of ['[bot-api] node main.js exited with code 0', '[bot-api] {"level":30,"msg":', 'plain']) {
      expect(readableLine(line)).toBe(line);
    }
  });

  it('puts a line split across writes back together, and passes the last unterminated line on at the end', async () => {
    const { logger, written } = appLines();
    logger.info({ context: 'Bootstrap' }, 'listening on 127.0.0.1, port 3001');
    const line = written[0];
    const lines = await shown([line.slice(0, 20), line.slice(20, 60), `${line.slice(60)}ready: all`]);
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(`^\\[voucher-api\\] ${TIME} INFO: Bootstrap: listening on 127.0.0.1, port 3001$`),
      ),
      'ready: all',
    ]);
  });
});
