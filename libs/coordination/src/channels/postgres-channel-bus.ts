import { Logger } from '@nestjs/common';
import { Client, Pool, type ClientConfig } from 'pg';
import { assertChannelName, assertChannelPayload, type ChannelBus, type ChannelListener } from '@app/platform';
import { ChannelListeners } from './listeners';

const RECONNECT_MS = { first: 100, max: 5000 };

/**
 * PostgreSQL LISTEN/NOTIFY in the service's own database (which already keeps deployments apart).
 * Messages arrive on one dedicated connection that LISTENs to every channel, reconnecting with a
 * growing pause and LISTENing again after any loss; NOTIFY goes out through a small pool as
 * `pg_notify($1, $2)`, so neither name nor payload is ever spliced into SQL. A NOTIFY sent outside a
 * transaction is delivered as soon as it runs; one sent inside a transaction only when it commits.
 */
export class PostgresChannelBus implements ChannelBus {
  readonly description = 'PostgreSQL LISTEN/NOTIFY';
  private readonly logger = new Logger('ChannelBus');
  private readonly listeners = new ChannelListeners();
  private readonly pool: Pool;
  private client?: Client;
  private connecting?: Promise<Client>;
  private listening = false;
  private reconnectMs = RECONNECT_MS.first;
  private reconnectTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly config: ClientConfig & { application_name: string }) {
    this.pool = new Pool({ ...config, application_name: `${config.application_name}-notify`, max: 2 });
    // A pooled connection that breaks while idle emits here; without a listener it would end the process.
    this.pool.on('error', (error) => this.logger.warn(`notify connection: ${error.message}`));
  }

  get connected(): boolean {
    return this.listening;
  }

  async subscribe(channel: string, listener: ChannelListener): Promise<void> {
    assertChannelName(channel);
    const isNew = this.listeners.add(channel, listener);
    const client = await this.connection();
    if (isNew) await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
  }

  async publish(channel: string, payload: string): Promise<void> {
    assertChannelName(channel);
    assertChannelPayload(channel, payload);
    await this.pool.query('SELECT pg_notify($1, $2)', [channel, payload]);
  }

  onConnectionChange(listener: (connected: boolean) => void): void {
    this.listeners.watch(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    this.setListening(false);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
    if (!this.pool.ended) await this.pool.end();
  }

  /** The LISTEN connection, opened (with every registered channel listened to) on first use. */
  private connection(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.connect().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async connect(): Promise<Client> {
    if (this.closed) throw new Error('channel bus closed');
    const client = new Client({
      ...this.config,
      application_name: `${this.config.application_name}-listen`,
      keepAlive: true,
    });
    client.on('notification', (message) => this.listeners.deliver(message.channel, message.payload ?? ''));
    client.on('error', (error) => this.lost(client, error.message));
    client.on('end', () => this.lost(client, 'connection ended'));
    try {
      await client.connect();
      // Until no channel is left: one may be registered while the others are being listened to.
      const listened = new Set<string>();
      for (let next = this.unlistened(listened); next.length > 0; next = this.unlistened(listened)) {
        for (const channel of next) {
          await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
          listened.add(channel);
        }
      }
    } catch (error) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      this.scheduleReconnect();
      throw error;
    }
    this.client = client;
    this.reconnectMs = RECONNECT_MS.first;
    this.setListening(true);
    return client;
  }

  private unlistened(listened: Set<string>): string[] {
    return this.listeners.channels().filter((channel) => !listened.has(channel));
  }

  private lost(client: Client, reason: string): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.setListening(false);
    client.removeAllListeners('end');
    void client.end().catch(() => undefined);
    if (this.closed) return;
    this.logger.warn(`LISTEN connection lost (${reason}); reconnecting`);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    const delay = this.reconnectMs;
    this.reconnectMs = Math.min(this.reconnectMs * 2, RECONNECT_MS.max);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (this.closed || this.client) return;
      this.connection().catch((error: Error) => this.logger.warn(`LISTEN connection: ${error.message}`));
    }, delay);
    this.reconnectTimer.unref();
  }

  private setListening(listening: boolean): void {
    if (this.listening === listening) return;
    this.listening = listening;
    this.listeners.announce(listening);
  }
}
