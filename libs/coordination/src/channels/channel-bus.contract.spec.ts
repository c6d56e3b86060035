import { MAX_CHANNEL_PAYLOAD_BYTES, type ChannelBus } from '@app/platform';
import { describeEachBackend, testChannelBuses, waitUntil } from '@app/testing';

/** Collects what one listener receives. */
function inbox(bus: ChannelBus, channel: string): Promise<string[]> {
  const received: string[] = [];
  return bus.subscribe(channel, (payload) => received.push(payload)).then(() => received);
}

/** The same cases against every ChannelBus: what wake-ups and cache invalidation rely on. */
describeEachBackend('ChannelBus contract', (backend) => {
  const buses = testChannelBuses(backend);
  afterAll(() => buses.close());

  it('delivers a message to every replica listening on its channel, the publisher included, and nowhere else', async () => {
    const [one, two] = [await buses.replica(), await buses.replica()];
    const [here, there, other] = [await inbox(one, 'spec:a'), await inbox(two, 'spec:a'), await inbox(two, 'spec:b')];
    await one.publish('spec:a', 'bot-1');
    await waitUntil(() => here.length === 1 && there.length === 1, 'both replicas hear the message');
    expect([here, there, other]).toEqual([['bot-1'], ['bot-1'], []]);
    expect(one.connected && two.connected).toBe(true);
  });

  it('gives a message to every listener of a channel in one replica', async () => {
    const bus = await buses.replica();
    const [first, second] = [await inbox(bus, 'spec:shared'), await inbox(bus, 'spec:shared')];
    await bus.publish('spec:shared', 'x');
    await waitUntil(() => first.length === 1 && second.length === 1, 'both listeners hear it');
  });

  it(`carries a payload of ${MAX_CHANNEL_PAYLOAD_BYTES} bytes intact and refuses a longer one before sending`, async () => {
    const bus = await buses.replica();
    const received = await inbox(bus, 'spec:big');
    const payload = `${'é'.repeat(3999)}x`;
    expect(Buffer.byteLength(payload)).toBe(MAX_CHANNEL_PAYLOAD_BYTES);
    await bus.publish('spec:big', payload);
    await expect(bus.publish('spec:big', `${payload}y`)).rejects.toThrow('exceeds');
    await waitUntil(() => received.length === 1, 'the largest payload arrives');
    expect(received[0]).toBe(payload);
  });

  it('refuses channel names that either backend would change or could not carry', async () => {
    const bus = await buses.replica();
    for (const name of ['', 'Upper', 'a b', 'quote"d', `x${'y'.repeat(63)}`]) {
      await expect(bus.publish(name, 'p')).rejects.toThrow('invalid channel name');
      await expect(bus.subscribe(name, () => undefined)).rejects.toThrow('invalid channel name');
    }
  });

  it('listens again after its connection is cut, saying so through connected and onConnectionChange', async () => {
    const [listener, publisher] = [await buses.replica(), await buses.replica()];
    const changes: boolean[] = [];
    listener.onConnectionChange((connected) => changes.push(connected));
    const received = await inbox(listener, 'spec:cut');
    await buses.cutListeningConnections();
    await waitUntil(() => changes.includes(false), 'the cut is noticed');
    await waitUntil(() => listener.connected, 'it listens again', 10_000);
    expect(changes.at(-1)).toBe(true);
    await publisher.publish('spec:cut', 'after');
    await waitUntil(() => received.includes('after'), 'a message after the cut arrives');
  });

  it('is not connected, and fails to publish or subscribe, while its backend is unreachable', async () => {
    const bus = buses.unreachable();
    await expect(bus.subscribe('spec:down', () => undefined)).rejects.toThrow();
    await expect(bus.publish('spec:down', 'p')).rejects.toThrow();
    expect(bus.connected).toBe(false);
  });
});
