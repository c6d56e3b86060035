import { Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import {
  assertChannelName,
  assertChannelPayload,
  type ChannelBus,
  type ChannelListener,
  createRedis,
} from '@app/platform';
import { ChannelListeners } from './listeners';

/**
 * Redis pub/sub. Channel names are not covered by ioredis' keyPrefix, so each carries the key prefix
 * here (deployments sharing a Redis stay apart). Messages arrive on a connection of their own (one in
 * subscriber mode can run no other command), subscribed again after every reconnect; messages go out
 * through the caller's client, which the caller closes.
 */
export class RedisChannelBus implements ChannelBus {
  readonly description = 'Redis pub/sub';
  private readonly logger = new Logger('ChannelBus');
  private readonly listeners = new ChannelListeners();
  private subscriber?: Redis;
  private ready = false;
  private pending = 0;

  constructor(
    private readonly options: { url: string; keyPrefix: string; connectionName: string },
    private readonly publisher: Redis,
  ) {}

  get connected(): boolean {
    return this.ready;
  }

  async subscribe(channel: string, listener: ChannelListener): Promise<void> {
    assertChannelName(channel);
    this.listeners.add(channel, listener);
    const subscriber = this.connection();
    // Subscribing twice is harmless; replies come in order, so after a reconnect this resolves only
    // once the re-subscription of every channel (sent on 'ready') has been confirmed too. `connected`
    // waits for every subscription in flight, so it never covers a channel not yet confirmed.
    this.pending++;
    try {
      await subscriber.subscribe(this.prefixed(channel));
    } finally {
      this.pending--;
    }
    if (this.subscriber === subscriber && subscriber.status === 'ready' && this.pending === 0) this.setReady(true);
  }

  async publish(channel: string, payload: string): Promise<void> {
    assertChannelName(channel);
    assertChannelPayload(channel, payload);
    await this.publisher.publish(this.prefixed(channel), payload);
  }

  onConnectionChange(listener: (connected: boolean) => void): void {
    this.listeners.watch(listener);
  }

  async close(): Promise<void> {
    this.setReady(false);
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    await subscriber?.quit().catch(() => subscriber.disconnect());
  }

  private connection(): Redis {
    if (this.subscriber) return this.subscriber;
    const subscriber = createRedis(this.options.url, `${this.options.connectionName}-channels`);
    subscriber.on('message', (channel: string, payload: string) => {
      if (channel.startsWith(this.options.keyPrefix)) {
        this.listeners.deliver(channel.slice(this.options.keyPrefix.length), payload);
      }
    });
    subscriber.on('error', (error: Error) => this.logger.warn(`subscriber: ${error.message}`));
    subscriber.on('close', () => this.setReady(false));
    subscriber.on('ready', () => void this.resubscribe(subscriber));
    this.subscriber = subscriber;
    return subscriber;
  }

  /** After a reconnect: every channel again, then `connected`. */
  private async resubscribe(subscriber: Redis): Promise<void> {
    const channels = this.listeners.channels().map((channel) => this.prefixed(channel));
    try {
      if (channels.length > 0) await subscriber.subscribe(...channels);
      if (this.subscriber === subscriber && this.pending === 0) this.setReady(true);
    } catch (error) {
      this.logger.warn(`channels not subscribed again: ${(error as Error).message}`);
    }
  }

  private setReady(ready: boolean): void {
    if (this.ready === ready) return;
    this.ready = ready;
    this.listeners.announce(ready);
  }

  private prefixed(channel: string): string {
    return `${this.options.keyPrefix}${channel}`;
  }
}
