/** Receives the payload of one message on a channel. */
export type ChannelListener = (payload: string) => void;

/**
 * Wake-ups between the replicas of a service: fire-and-forget messages on named channels (Redis
 * pub/sub, or PostgreSQL LISTEN/NOTIFY in the PostgreSQL-only mode). A message reaches every replica
 * listening at that moment, the publisher's own included; nothing is stored, so a replica that was not
 * listening misses it. Hence `connected`: a user whose correctness depends on hearing every message
 * (a cache that must drop revoked credentials) serves nothing while it is false.
 */
export interface ChannelBus {
  /** Names the backend in log lines. */
  readonly description: string;
  /** True while every subscribed channel is listened to. */
  readonly connected: boolean;
  /**
   * Calls `listener` for every message on `channel` from now on. Resolves once the channel is listened
   * to; if that fails the subscription stays registered and is listened to when the connection is back.
   */
  subscribe(channel: string, listener: ChannelListener): Promise<void>;
  /** Rejects while the backend is unreachable, and at once for a payload over MAX_CHANNEL_PAYLOAD_BYTES. */
  publish(channel: string, payload: string): Promise<void>;
  /** `false` as soon as messages may be missed; `true` once every channel is listened to again. */
  onConnectionChange(listener: (connected: boolean) => void): void;
  close(): Promise<void>;
}

/** The injection token of the process's ChannelBus. */
export const CHANNEL_BUS = Symbol('CHANNEL_BUS');

/** PostgreSQL's NOTIFY takes payloads shorter than 8000 bytes; both backends keep to it. */
export const MAX_CHANNEL_PAYLOAD_BYTES = 7999;

/** PostgreSQL truncates identifiers to 63 bytes, which would silently merge channels. */
const CHANNEL_NAME = /^[a-z0-9][a-z0-9:._-]{0,62}$/;

/** A channel name both backends carry unchanged: lower case, digits and `:._-`, at most 63 bytes. */
export function assertChannelName(channel: string): void {
  if (!CHANNEL_NAME.test(channel)) throw new Error(`invalid channel name "${channel}"`);
}

export function assertChannelPayload(channel: string, payload: string): void {
  const bytes = Buffer.byteLength(payload, 'utf8');
  if (bytes > MAX_CHANNEL_PAYLOAD_BYTES) {
    throw new Error(`payload of ${bytes} bytes on channel ${channel} exceeds ${MAX_CHANNEL_PAYLOAD_BYTES} bytes`);
  }
}
