import express, { type Request, type Response } from 'express';
import request from 'supertest';
import { TelegramArgs } from './telegram-args';
import { TelegramError } from './telegram-errors';
import { MultipartSlots } from './multipart-slots';
import { ParseLimits, parseTelegramCall } from './telegram-params';

const LIMITS = { bodyLimit: '1kb', fileBytes: 64, files: 2, totalBytes: 100, bodyTimeoutMs: 5000, botId: 'bot-1' };

/**
 * An app that parses each call and answers what it read, or the Telegram error it refused with. One
 * multipart call at a time: every multipart test below also shows the slot is given back.
 */
function echoApp(limits: Omit<ParseLimits, 'slots'> = LIMITS, slots = new MultipartSlots(1, 1)) {
  const app = express();
  app.all('/call', async (req: Request, res: Response) => {
    try {
      const parsed = await parseTelegramCall(req, res, { ...limits, slots });
      parsed.release();
      const parts = Object.fromEntries(
        [...parsed.parts].map(([name, part]) => [
          name,
          { fileName: part.fileName, mimeType: part.mimeType, text: part.bytes.toString() },
        ]),
      );
      res.json({ values: parsed.values, parts });
    } catch (error) {
      const refusal = error as TelegramError;
      res.status(refusal.status).json({ description: refusal.description });
    }
  });
  return app;
}

describe('parseTelegramCall: the four encodings Telegram accepts', () => {
  const app = echoApp();

  it('reads query-string parameters of a GET', async () => {
    const res = await request(app).get('/call?chat_id=-5&text=hi').expect(200);
    expect(res.body.values).toEqual({ chat_id: '-5', text: 'hi' });
  });

  it('reads a JSON body with its types, body values winning over the query string', async () => {
    const res = await request(app)
      .post('/call?text=from-query')
      .send({ chat_id: 7, text: 'from-body', reply_markup: { inline_keyboard: [] } })
      .expect(200);
    expect(res.body.values).toEqual({ chat_id: 7, text: 'from-body', reply_markup: { inline_keyboard: [] } });
  });

  it('reads a url-encoded form as strings', async () => {
    const res = await request(app)
      .post('/call')
      .type('form')
      .send('chat_id=12&reply_markup=%7B%22a%22%3A1%7D')
      .expect(200);
    expect(res.body.values).toEqual({ chat_id: '12', reply_markup: '{"a":1}' });
  });

  it('reads multipart fields and file parts with their names and types', async () => {
    const res = await request(app)
      .post('/call')
      .field('chat_id', '3')
      .field('media', '[{"type":"photo","media":"attach://one"}]')
      .attach('one', Buffer.from('PNGDATA'), { filename: 'one.png', contentType: 'image/png' })
      .expect(200);
    expect(res.body.values).toEqual({ chat_id: '3', media: '[{"type":"photo","media":"attach://one"}]' });
    expect(res.body.parts).toEqual({ one: { fileName: 'one.png', mimeType: 'image/png', text: 'PNGDATA' } });
  });

  it('refuses a file part above the size limit with 413', async () => {
    const res = await request(app)
      .post('/call')
      .attach('photo', Buffer.alloc(65, 1), { filename: 'big.jpg', contentType: 'image/jpeg' })
      .expect(413);
    expect(res.body.description).toBe('Request Entity Too Large');
  });

  it('refuses parts that are each within the limit but together above the call total with 413', async () => {
    const res = await request(app)
      .post('/call')
      .attach('one', Buffer.alloc(60, 1), { filename: 'a.jpg', contentType: 'image/jpeg' })
      .attach('two', Buffer.alloc(60, 2), { filename: 'b.jpg', contentType: 'image/jpeg' })
      .expect(413);
    expect(res.body.description).toBe('Request Entity Too Large');
  });

  it('counts multipart fields against the call total, not only file parts (defect 3: fields outside the bound)', async () => {
    const res = await request(app)
      .post('/call')
      .field('caption', 'c'.repeat(60))
      .field('text', 't'.repeat(60))
      .expect(413);
    expect(res.body.description).toBe('Request Entity Too Large');
    await request(app).post('/call').field('caption', 'c'.repeat(60)).expect(200);
  });

  it('tells a multipart call to retry (429) while the process already buffers its most calls', async () => {
    const full = echoApp(LIMITS, new MultipartSlots(0, 1));
    const res = await request(full)
      .post('/call')
      .attach('one', Buffer.from('x'), { filename: 'a.jpg', contentType: 'image/jpeg' })
      .expect(429);
    expect(res.body.description).toBe('Too Many Requests: retry after 1');
    await request(full).post('/call').send({ chat_id: 1 }).expect(200);
  });

  it('refuses malformed JSON and other content types with Bad Request', async () => {
    const broken = await request(app)
      .post('/call')
      .set('Content-Type', 'application/json')
      .send('{"chat_id":')
      .expect(400);
    expect(broken.body.description).toBe("Bad Request: can't parse JSON body");
    const xml = await request(app).post('/call').set('Content-Type', 'application/xml').send('<a/>').expect(400);
    expect(xml.body.description).toMatch(/^Bad Request: unsupported Content-Type/);
  });

  it('refuses a JSON body that is not an object', async () => {
    const res = await request(app).post('/call').set('Content-Type', 'application/json').send('[1,2]').expect(400);
    expect(res.body.description).toBe('Bad Request: the JSON body must be an object');
  });
});

describe('TelegramArgs: typed reads that accept JSON types and form strings alike', () => {
  const args = (values: Record<string, unknown>, parts = new Map()) => new TelegramArgs({ values, parts });

  it('reads integers from numbers and numeric strings and refuses anything else', () => {
    expect(args({ a: 5, b: '-100', c: '' }).int('a')).toBe(5);
    expect(args({ b: '-100' }).int('b')).toBe(-100);
    expect(args({ c: '' }).int('c')).toBeUndefined();
    expect(() => args({ d: '1.5' }).int('d')).toThrow('Bad Request: parameter d must be an integer');
  });

  it('reads JSON-serialised objects from forms and real objects from JSON bodies', () => {
    expect(args({ m: '{"inline_keyboard":[]}' }).json('m')).toEqual({ inline_keyboard: [] });
    expect(args({ m: { inline_keyboard: [] } }).json('m')).toEqual({ inline_keyboard: [] });
    expect(() => args({ m: '{oops' }).json('m', 'reply keyboard markup JSON object')).toThrow(
      "Bad Request: can't parse reply keyboard markup JSON object",
    );
  });

  it('reads booleans as Telegram forms send them', () => {
    expect(args({ a: 'true', b: false, c: '0' }).bool('a')).toBe(true);
    expect(args({ b: false }).bool('b')).toBe(false);
    expect(args({ c: '0' }).bool('c')).toBe(false);
    expect(() => args({ d: 'yes' }).bool('d')).toThrow('must be a Boolean');
  });

  it('tells integer chat ids from @usernames', () => {
    expect(args({ chat_id: '-42' }).chat()).toEqual({ id: -42 });
    expect(args({ chat_id: '@somegroup' }).chat()).toEqual({ username: 'somegroup' });
    expect(() => args({}).chat()).toThrow('Bad Request: parameter chat_id is required');
  });

  it('resolves an InputFile from its own part, an attach:// reference or a file_id, never a URL', () => {
    const part = { field: 'photo', fileName: 'p.jpg', mimeType: 'image/jpeg', bytes: Buffer.from('x') };
    const other = { ...part, field: 'pic' };
    expect(args({}, new Map([['photo', part]])).inputFile('photo')).toEqual({ upload: part });
    expect(args({ photo: 'attach://pic' }, new Map([['pic', other]])).inputFile('photo')).toEqual({ upload: other });
    expect(args({ photo: 'abc-file-id' }).inputFile('photo')).toEqual({ fileId: 'abc-file-id' });
    expect(() => args({ photo: 'attach://missing' }).inputFile('photo')).toThrow('file part attach://missing');
    expect(() => args({ photo: 'https://example.com/a.jpg' }).inputFile('photo')).toThrow('by URL is not supported');
  });
});
