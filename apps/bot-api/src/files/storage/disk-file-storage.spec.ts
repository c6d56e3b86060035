import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { DiskFileStorage } from './disk-file-storage';
import { newStorageKey } from './storage-keys';

describe('DiskFileStorage.receive', () => {
  let directory: string;
  let storage: DiskFileStorage;
  const key = () => newStorageKey({ kind: 'bot', botId: 'bot1' });

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'disk-storage-'));
    storage = new DiskFileStorage({ directory, publicBaseUrl: 'http://files.test', signingKey: '00'.repeat(32) });
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  const leftovers = () => readdirSync(join(directory, '.incoming'));

  it('moves exactly the declared bytes into place once commit agrees', async () => {
    const k = key();
    await storage.receive(k, 6, Readable.from([Buffer.from('abc'), Buffer.from('def')]), async () => undefined);
    expect(readFileSync(join(directory, k), 'utf8')).toBe('abcdef');
    expect(await storage.stat(k)).toEqual({ size: 6, contentType: null });
    expect(leftovers()).toEqual([]);
  });

  it('stops at the first byte past the declared size and keeps nothing', async () => {
    const k = key();
    const commit = jest.fn(async () => undefined);
    const body = Readable.from([Buffer.alloc(4), Buffer.alloc(4)]);
    await expect(storage.receive(k, 5, body, commit)).rejects.toMatchObject({ code: 'UPLOAD_SIZE_MISMATCH' });
    expect(commit).not.toHaveBeenCalled();
    expect(existsSync(join(directory, k))).toBe(false);
    expect(leftovers()).toEqual([]);
  });

  it('refuses fewer bytes than declared, and keeps nothing when commit refuses', async () => {
    const k = key();
    await expect(storage.receive(k, 10, Readable.from([Buffer.alloc(3)]), async () => undefined)).rejects.toMatchObject(
      {
        code: 'UPLOAD_SIZE_MISMATCH',
      },
    );
    const refusal = new Error('already used');
    await expect(
      storage.receive(k, 3, Readable.from([Buffer.alloc(3)]), async () => {
        throw refusal;
      }),
    ).rejects.toBe(refusal);
    expect(existsSync(join(directory, k))).toBe(false);
    expect(leftovers()).toEqual([]);
  });

  it("signs download URLs for bot-api's own route", async () => {
    const url = await storage.downloadUrl({ key: key(), type: 'image/png' }, new Date(2_000_000_000_000));
    expect(url).toMatch(
      /^http:\/\/files\.test\/api\/v1\/bots\/files\/storage\/[A-Za-z0-9_-]+\?type=image%2Fpng&expires=2000000000&signature=/,
    );
  });
});

describe('DiskFileStorage.receive of an aborted body', () => {
  it('answers UPLOAD_SIZE_MISMATCH and keeps nothing', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'disk-storage-'));
    try {
      const storage = new DiskFileStorage({ directory, publicBaseUrl: 'http://x', signingKey: '00'.repeat(32) });
      const body = new Readable({ read() {} });
      body.push(Buffer.alloc(2));
      setTimeout(() => body.destroy(), 10);
      const k = newStorageKey({ kind: 'bot', botId: 'bot1' });
      await expect(storage.receive(k, 10, body, async () => undefined)).rejects.toMatchObject({
        code: 'UPLOAD_SIZE_MISMATCH',
      });
      expect(readdirSync(join(directory, '.incoming'))).toEqual([]);
      expect(existsSync(join(directory, k))).toBe(false);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
