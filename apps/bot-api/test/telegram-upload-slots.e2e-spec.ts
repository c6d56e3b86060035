import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { Api } from 'grammy';
import { FileUploadsService } from '../src/files/file-uploads.service';
import { MultipartSlots } from '../src/telegram/multipart-slots';
import { ApprovedBot, BotTestContext, createApprovedBot, openPrivateChat, startBotApp } from './app-context';
import { listenForFrameworks, until } from './telegram-support';

const BOUNDARY = 'upload-slots-boundary';

/**
 * A multipart sendDocument over a raw socket that announces `fileBytes` of file but sends only the
 * headers and the first kilobyte; the test then drops the socket or trickles the rest.
 */
function partialUpload(port: number, token: string, chatId: number, fileBytes: number) {
  const head =
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="chat_id"\r\n\r\n${chatId}\r\n` +
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="document"; filename="big.bin"\r\n` +
    `Content-Type: application/octet-stream\r\n\r\n`;
  const tail = `\r\n--${BOUNDARY}--\r\n`;
  const socket: Socket = connect(port, '127.0.0.1');
  let answer = '';
  socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(
    `POST /telegram/bot${token}/sendDocument HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\n` +
      `Content-Length: ${Buffer.byteLength(head) + fileBytes + tail.length}\r\n\r\n${head}`,
  );
  socket.write(Buffer.alloc(1024, 7));
  return { socket, closed, answer: () => answer };
}

describe('Telegram face: multipart uploads that never finish give their slot back', () => {
  let ctx: BotTestContext;
  let port: number;
  let slots: MultipartSlots;
  const bots: Array<ApprovedBot & { chatId: number }> = [];

  async function readyBot(owner: string, username: string) {
    const bot = await createApprovedBot(ctx, owner, { username });
    const alice = await ctx.jwt('alice', 'Alice');
    const chat = await openPrivateChat(ctx, alice, bot.botId);
    await request(ctx.app.getHttpServer())
      .post(`/api/v1/bots/client/chats/${chat}/messages`)
      .set('Authorization', `Bearer ${alice}`)
      .send({ text: 'hello' })
      .expect(201);
    const [update] = await new Api(bot.token, { apiRoot: `http://127.0.0.1:${port}/telegram` }).getUpdates();
    return { ...bot, chatId: update.message!.chat.id };
  }

  /** A complete multipart upload, as any framework sends one. */
  function upload(bot: { token: string; chatId: number }) {
    return request(ctx.app.getHttpServer())
      .post(`/telegram/bot${bot.token}/sendDocument`)
      .field('chat_id', String(bot.chatId))
      .attach('document', Buffer.from('a small report'), { filename: 'report.txt', contentType: 'text/plain' });
  }

  beforeAll(async () => {
    ctx = await startBotApp({ TELEGRAM_UPLOAD_TIMEOUT_MS: '2000' });
    await listenForFrameworks(ctx);
    port = (ctx.app.getHttpServer().address() as AddressInfo).port;
    slots = ctx.app.get(MultipartSlots);
    bots.push(await readyBot('dev-1', 'slots_a_bot'), await readyBot('dev-2', 'slots_b_bot'));
  });
  afterAll(() => ctx.close());

  it('releases the slot of every upload whose client drops the socket mid-body (defect 1: six abandoned uploads switched multipart off)', async () => {
    const [a, b] = bots;
    for (let dropped = 0; dropped < 6; dropped++) {
      const call = partialUpload(port, a.token, a.chatId, 5 * 1024 * 1024);
      await until(async () => (slots.inUse === 1 ? true : undefined));
      call.socket.destroy();
      // Well before TELEGRAM_UPLOAD_TIMEOUT_MS: the dropped socket itself ends the call.
      await until(async () => (slots.inUse === 0 ? true : undefined), 1000);
    }
    const [ofA, ofB] = await Promise.all([upload(a), upload(b)]);
    expect([ofA.status, ofB.status]).toEqual([200, 200]);
    expect(ofB.body.result.document.file_name).toBe('report.txt');
  });

  it("cuts a trickling body off with 408 after TELEGRAM_UPLOAD_TIMEOUT_MS, while other bots' uploads keep working (defect 1: a slow body held its slot)", async () => {
    const [a, b] = bots;
    const trickles = [0, 1].map(() => partialUpload(port, a.token, a.chatId, 1024 * 1024));
    const drip = setInterval(() => {
      for (const call of trickles) if (!call.socket.destroyed) call.socket.write(Buffer.alloc(16, 1));
    }, 100);
    try {
      await until(async () => (slots.inUse === 2 ? true : undefined));
      // Bot a has its share of the slots; bot b still uploads at once.
      const refused = await upload(a).expect(429);
      expect(refused.body.description).toBe('Too Many Requests: retry after 1');
      const other = await upload(b).expect(200);
      expect(other.body.result.document.file_name).toBe('report.txt');

      await Promise.all(trickles.map((call) => call.closed));
      for (const call of trickles) expect(call.answer()).toMatch(/^HTTP\/1\.1 408 [\s\S]*"error_code":408/);
      expect(slots.inUse).toBe(0);
      await upload(a).expect(200);
    } finally {
      clearInterval(drip);
    }
  });

  it('holds the slot while the parts are stored and probed, until the call is answered (defect 3: parts outlived their slot)', async () => {
    const uploads = ctx.app.get(FileUploadsService);
    const heldWhileStoring: number[] = [];
    const storeBytes = uploads.storeBytes.bind(uploads);
    const spy = jest.spyOn(uploads, 'storeBytes').mockImplementation(async (...args) => {
      heldWhileStoring.push(slots.inUse);
      return storeBytes(...args);
    });
    try {
      await upload(bots[1]).expect(200);
    } finally {
      spy.mockRestore();
    }
    expect(heldWhileStoring).toEqual([1]);
    expect(slots.inUse).toBe(0);
  });
});
