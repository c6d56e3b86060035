import { createRedis } from './redis';
import { InvalidatedCache } from './invalidated-cache';

describe('InvalidatedCache', () => {
  const publisher = createRedis('redis://127.0.0.1:6379', 'invalidated-cache-spec');
  const channel = `invalidated-cache-spec:${process.pid}:${Date.now()}`;
  const caches: InvalidatedCache<string>[] = [];
  const start = async (ttlMs = 60_000) => {
    const cache = new InvalidatedCache<string>({
      name: 'spec',
      ttlMs,
      channel,
      redisUrl: 'redis://127.0.0.1:6379',
      publisher,
    });
    await cache.start();
    caches.push(cache);
    return cache;
  };
  afterAll(async () => {
    await Promise.all(caches.map((cache) => cache.stop()));
    await publisher.quit();
  });

  it('drops an entry when any of its groups is invalidated, and keeps entries of other groups', async () => {
    const cache = await start();
    cache.put('k1', 'v1', ['token:1', 'app:A'], cache.readStarted());
    cache.put('k2', 'v2', ['token:2', 'app:A'], cache.readStarted());
    cache.put('k3', 'v3', ['token:3', 'app:B'], cache.readStarted());
    cache.invalidate('token:1');
    expect([cache.get('k1'), cache.get('k2'), cache.get('k3')]).toEqual([undefined, 'v2', 'v3']);
    cache.invalidate('app:A');
    expect([cache.get('k2'), cache.get('k3')]).toEqual([undefined, 'v3']);
  });

  it('does not store a read that started before an invalidation', async () => {
    const cache = await start();
    const startedAt = cache.readStarted();
    cache.invalidate('token:9');
    cache.put('k9', 'stale', ['token:9'], startedAt);
    expect(cache.get('k9')).toBeUndefined();
  });

  it('drops the entry on another instance through Redis', async () => {
    const [here, there] = [await start(), await start()];
    there.put('k', 'v', ['token:7'], there.readStarted());
    here.invalidate('token:7');
    for (let attempt = 0; attempt < 50 && there.get('k') !== undefined; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(there.get('k')).toBeUndefined();
  });

  it('serves nothing once the entry has expired, and nothing at all when turned off', async () => {
    const short = await start(20);
    short.put('k', 'v', ['g'], short.readStarted());
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(short.get('k')).toBeUndefined();
    const off = await start(0);
    off.put('k', 'v', ['g'], off.readStarted());
    expect(off.get('k')).toBeUndefined();
  });
});
