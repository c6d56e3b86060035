import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeOpenApiDocuments } from './openapi';

describe('npm run openapi', () => {
  let out: string;

  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), 'openapi-'));
  });

  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('writes both documents with no database or Redis to talk to', async () => {
    const connect = jest.spyOn(Socket.prototype, 'connect');
    const files = await writeOpenApiDocuments(out, { DB_PORT: '1', REDIS_URL: 'redis://127.0.0.1:1' });

    // pg and ioredis both open their connections through net.Socket#connect.
    expect(connect).not.toHaveBeenCalled();
    connect.mockRestore();

    expect(files).toEqual([join(out, 'voucher-api.json'), join(out, 'bot-api.json')]);
    for (const file of files) {
      const document = JSON.parse(readFileSync(file, 'utf8'));
      expect(document.openapi).toBe('3.0.3');
      expect(Object.keys(document.paths)).toEqual(
        expect.arrayContaining(['/health/live', '/health/ready', '/metrics']),
      );
      expect(Object.keys(document.paths).some((path) => path.startsWith('/api/v1/'))).toBe(true);
    }
  });
});
