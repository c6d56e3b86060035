import { createSocket, Socket } from 'node:dgram';
import { HostNotResolvedError, HostResolver } from './host-resolver';

describe('HostResolver', () => {
  let silent: Socket;
  let server: string;

  beforeAll(async () => {
    // A DNS server that receives every query and never answers, as a broken or hostile one would.
    silent = createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    server = `127.0.0.1:${silent.address().port}`;
  });
  afterAll(() => silent.close());

  it('security defect 1: gives up on a DNS server that never answers within its timeout', async () => {
    const resolver = new HostResolver(200, 1, [server]);
    const started = Date.now();
    await expect(resolver.resolve('hooks.example.com')).rejects.toBeInstanceOf(HostNotResolvedError);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('security defect 1: many hosts hanging on a silent DNS server leave the libuv thread pool free', async () => {
    const resolver = new HostResolver(2000, 1, [server]);
    const hanging = Array.from({ length: 16 }, (_, i) => resolver.resolve(`host-${i}.example.com`).catch(() => null));
    const { readFile } = await import('node:fs/promises');
    const started = Date.now();
    await readFile(__filename);
    // Were the look-ups on the thread pool, the read would wait for at least one of them to time out
    // (2 s); the bound leaves a loaded CI box room without missing that.
    expect(Date.now() - started).toBeLessThan(1000);
    await Promise.all(hanging);
  }, 15_000);

  it('answers IP literals and localhost names without asking any server', async () => {
    const resolver = new HostResolver(200, 1, [server]);
    await expect(resolver.resolve('203.0.113.9')).resolves.toEqual(['203.0.113.9']);
    await expect(resolver.resolve('::1')).resolves.toEqual(['::1']);
    await expect(resolver.resolve('localhost')).resolves.toEqual(['127.0.0.1', '::1']);
  });
});
