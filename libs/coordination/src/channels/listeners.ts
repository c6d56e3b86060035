import type { ChannelListener } from '@app/platform';

/** The listeners of each channel and of connection changes: what both ChannelBus adapters keep alike. */
export class ChannelListeners {
  private readonly byChannel = new Map<string, Set<ChannelListener>>();
  private readonly onChange = new Set<(connected: boolean) => void>();

  /** Registers `listener`; true when the channel is new (it has to be listened to). */
  add(channel: string, listener: ChannelListener): boolean {
    const listeners = this.byChannel.get(channel);
    if (listeners) {
      listeners.add(listener);
      return false;
    }
    this.byChannel.set(channel, new Set([listener]));
    return true;
  }

  channels(): string[] {
    return [...this.byChannel.keys()];
  }

  deliver(channel: string, payload: string): void {
    for (const listener of this.byChannel.get(channel) ?? []) listener(payload);
  }

  watch(listener: (connected: boolean) => void): void {
    this.onChange.add(listener);
  }

  announce(connected: boolean): void {
    for (const listener of this.onChange) listener(connected);
  }
}
