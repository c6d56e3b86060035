import { S3FileStorage } from './s3-file-storage';

describe('S3FileStorage presigned URLs', () => {
  const storage = new S3FileStorage({
    endpoint: 'http://127.0.0.1:9000',
    bucket: 'files',
    region: 'eu-central-1',
    accessKeyId: 'AKIDEXAMPLE',
    secretAccessKey: 'secret',
    forcePathStyle: true,
  });

  it('binds Content-Length, Content-Type and If-None-Match into the upload URL, so the store refuses other bytes and a second PUT', async () => {
    const target = await storage.uploadTarget(
      { key: 'bots/b1/k', size: 1234, type: 'image/png' },
      new Date(Date.now() + 900_000),
    );
    const url = new URL(target.url);
    expect(url.origin + url.pathname).toBe('http://127.0.0.1:9000/files/bots/b1/k');
    expect(url.searchParams.get('X-Amz-SignedHeaders')?.split(';')).toEqual(
      expect.arrayContaining(['content-length', 'content-type', 'host', 'if-none-match']),
    );
    expect(Number(url.searchParams.get('X-Amz-Expires'))).toBeGreaterThan(890);
    expect(Number(url.searchParams.get('X-Amz-Expires'))).toBeLessThanOrEqual(900);
    expect(url.searchParams.has('x-amz-checksum-crc32')).toBe(false);
    expect(target.headers).toEqual({ 'Content-Type': 'image/png', 'Content-Length': '1234', 'If-None-Match': '*' });
  });

  it('caps download URLs at the seven days SigV4 allows', async () => {
    const url = new URL(
      await storage.downloadUrl({ key: 'bots/b1/k', type: 'image/png' }, new Date(Date.now() + 30 * 86_400_000)),
    );
    expect(url.searchParams.get('X-Amz-Expires')).toBe('604800');
    expect(url.searchParams.get('response-content-type')).toBe('image/png');
  });
});
