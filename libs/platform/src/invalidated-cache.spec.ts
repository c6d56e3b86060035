import { describeEachBackend, testChannelBuses, waitUntil } from '@app/testing';
import type { ChannelBus } from './channel-bus';
import { InvalidatedCache } from './invalidated-cache';

describeEachBackend('InvalidatedCache', (backend) => {
  const buses = testChannelBuses(backend);
  const caches: InvalidatedCache<string>[] = [];
  const start = async (ttlMs = 60_000, bus?: ChannelBus) => {
    const cache = new InvalidatedCache<string>({
      name: 'spec',
      ttlMs,
      channel: 'spec:changes',
      bus: bus ?? (await buses.replica()),
    });
    await cache.start();
    caches.push(cache);
    return cache;
  };
  afterAll(async () => {
    await Promise.all(caches.map((cache) => cache.stop()));
    await buses.close();
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

  it('drops the entry on another replica through the channel bus', async () => {
    const [here, there] = [await start(), await start()];
    there.put('k', 'v', ['token:7'], there.readStarted());
    expect(there.get('k')).toBe('v');
    here.invalidate('token:7');
    await waitUntil(() => there.get('k') === undefined, 'the other replica drops the entry');
  });

  it('serves nothing and stores nothing while its backend is unreachable', async () => {
    const cache = await start(60_000, buses.unreachable());
    cache.put('k', 'v', ['token:8'], cache.readStarted());
    expect(cache.get('k')).toBeUndefined();
  });

  it('drops everything and serves nothing while its channel is not listened to, then caches again', async () => {
    const cache = await start();
    cache.put('k', 'v', ['token:5'], cache.readStarted());
    await buses.cutListeningConnections();
    // Checked on every poll: nothing may be served from the moment the cut is noticed.
    await waitUntil(() => cache.get('k') === undefined, 'the cut empties the cache');
    await waitUntil(
      () => {
        cache.put('k2', 'v2', ['token:6'], cache.readStarted());
        return cache.get('k2') === 'v2';
      },
      'the cache serves again once the channel is listened to',
      10_000,
    );
  });

  it('serves nothing once the entry has expired, and nothing at all when turned off', async () => {
    const short = await start(20);
    short.put('k', 'v', ['g'], short.readStarted());
    await waitUntil(() => short.get('k') === undefined, 'the entry expires');
    const off = await start(0);
    off.put('k', 'v', ['g'], off.readStarted());
    expect(off.get('k')).toBeUndefined();
  });
});
