import { AttemptResult, hostOf, HostResolver, webhookSignatureHeaders } from '@app/bot-delivery';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { createSecureContext, rootCertificates, SecureContext } from 'node:tls';
import { performance } from 'node:perf_hooks';
import { Agent } from 'undici';
import { acceptableAddresses, AddressRefusedError, addressRefusal, describeSendError } from './sender-checks';

export interface WebhookTarget {
  botId: string;
  url: string;
  secret: string;
  /** The secret replaced by a rotation, while its overlap lasts: every request is signed with both. */
  previousSecret?: string;
  /** Null: any public address (or any address with allowPrivate). */
  allowedIps: string[] | null;
  maxConnections: number;
  /** Headers of the body's format (Telegram's secret token header), sent besides the signatures. */
  formatHeaders?: Record<string, string>;
}

/** What the delivery log records of one POST. */
export type SendResult = AttemptResult;

export interface SenderOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  /** Extra trusted CA (PEM), added to the system roots. */
  ca?: string;
  /** Bots whose Agent (and keep-alive connections) are kept; the least recently used beyond it is closed. */
  maxAgents?: number;
  /** An Agent unused for this long is closed with its connections. */
  agentIdleMs?: number;
  /** How long one DNS query of a webhook host may take (each is tried twice). */
  dnsTimeoutMs?: number;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

interface BotAgent {
  key: string;
  agent: Agent;
  lastUsed: number;
  /** Requests running on this Agent; the idle sweep leaves it alone while any are. */
  inFlight: number;
}

const DEFAULT_MAX_AGENTS = 1000;
const DEFAULT_DNS_TIMEOUT_MS = 3000;
const DEFAULT_AGENT_IDLE_MS = 120_000;
const KEEP_ALIVE_MS = 30_000;

/**
 * POSTs signed webhooks over one keep-alive undici Agent per bot. The Agent's connection limit is the
 * bot's max_connections, so one replica never holds more requests open to a bot than it allowed.
 * Every new connection resolves the host itself, keeps only addresses the policy accepts (public
 * unless allowPrivate; within allowed_ips when set) and connects to that IP while TLS still uses the
 * original host name for SNI and certificate checks.
 *
 * All connections share one TLS context: building one per connection (parsing every root certificate)
 * was a large share of the CPU of a fresh connection. The Agents are kept in least-recently-used order
 * and bounded, and an idle one is closed, so a replica serving many bots keeps its memory flat.
 */
export class WebhookSender {
  /** Insertion order is use order: the first entry is the least recently used. */
  private readonly agents = new Map<string, BotAgent>();
  private readonly tlsContext: SecureContext;
  private readonly maxAgents: number;
  private readonly agentIdleMs: number;
  private readonly idleSweep: NodeJS.Timeout;
  private readonly resolver: HostResolver;

  constructor(private readonly options: SenderOptions) {
    this.resolver = new HostResolver(options.dnsTimeoutMs ?? DEFAULT_DNS_TIMEOUT_MS);
    this.tlsContext = createSecureContext(options.ca ? { ca: [...rootCertificates, options.ca] } : {});
    this.maxAgents = options.maxAgents ?? DEFAULT_MAX_AGENTS;
    this.agentIdleMs = options.agentIdleMs ?? DEFAULT_AGENT_IDLE_MS;
    this.idleSweep = setInterval(() => this.closeIdleAgents(), Math.min(this.agentIdleMs, KEEP_ALIVE_MS));
    this.idleSweep.unref();
  }

  /** How many bots currently hold an Agent with its connections. */
  get agentCount(): number {
    return this.agents.size;
  }

  async send(target: WebhookTarget, rawBody: Buffer, updateId: string): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const url = new URL(target.url);
    const literal = hostOf(url);
    if (isIP(literal)) {
      const refusal = addressRefusal([literal], {
        allowPrivate: this.options.allowPrivate,
        allowedIps: target.allowedIps,
      });
      if (refusal) return { ok: false, statusCode: null, latencyMs: elapsed(), error: refusal };
    }
    const secrets = target.previousSecret === undefined ? [target.secret] : [target.secret, target.previousSecret];
    const signatures = webhookSignatureHeaders(secrets, rawBody, updateId, Math.floor(Date.now() / 1000));
    // Not AbortSignal.timeout: its timer would outlive a fast answer by the whole timeout, and at
    // thousands of deliveries a second those timers were a large part of the heap.
    const abort = new AbortController();
    const deadline = setTimeout(() => abort.abort(), this.options.timeoutMs);
    const botAgent = this.agentFor(target);
    botAgent.inFlight += 1;
    try {
      const response = await botAgent.agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'open-platform-webhooks/1',
          ...target.formatHeaders,
          ...signatures,
        },
        body: rawBody,
        signal: abort.signal,
      });
      // The receiver's answer is not used; reading a bounded part frees the connection for keep-alive.
      await response.body.dump({ limit: 64 * 1024 });
      const ok = response.statusCode >= 200 && response.statusCode < 300;
      const retryAfterMs =
        response.statusCode === 429 || response.statusCode === 503
          ? retryAfterMsOf(response.headers['retry-after'], Date.now())
          : null;
      return {
        ok,
        statusCode: response.statusCode,
        latencyMs: elapsed(),
        error: ok ? null : `HTTP ${response.statusCode}`,
        ...(retryAfterMs === null ? {} : { retryAfterMs }),
      };
    } catch (error) {
      return {
        ok: false,
        statusCode: null,
        latencyMs: elapsed(),
        error: describeSendError(error, this.options.timeoutMs),
      };
    } finally {
      clearTimeout(deadline);
      botAgent.inFlight -= 1;
      this.markUsed(target.botId, botAgent);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.idleSweep);
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(agents.map(({ agent }) => agent.close().catch(() => undefined)));
  }

  private agentFor(target: WebhookTarget): BotAgent {
    const key = `${target.maxConnections}|${(target.allowedIps ?? []).join(',')}`;
    const current = this.agents.get(target.botId);
    if (current) this.agents.delete(target.botId);
    if (current?.key === key) {
      current.lastUsed = Date.now();
      this.agents.set(target.botId, current);
      return current;
    }
    // A changed configuration gets fresh connections; requests in flight on the old Agent finish first.
    if (current) void current.agent.close().catch(() => undefined);
    const agent = new Agent({
      connections: target.maxConnections,
      keepAliveTimeout: KEEP_ALIVE_MS,
      connect: {
        timeout: Math.min(this.options.timeoutMs, 10_000),
        secureContext: this.tlsContext,
        lookup: this.lookupFor(target.allowedIps),
      },
    });
    const created = { key, agent, lastUsed: Date.now(), inFlight: 0 };
    this.agents.set(target.botId, created);
    this.evictBeyondLimit();
    return created;
  }

  /** Moves the bot's Agent to the end of the use order, which the idle sweep relies on. */
  private markUsed(botId: string, entry: BotAgent): void {
    if (this.agents.get(botId) !== entry) return;
    this.agents.delete(botId);
    entry.lastUsed = Date.now();
    this.agents.set(botId, entry);
  }

  /** close() lets requests in flight on an evicted Agent finish; the per-bot slots still bound them. */
  private evictBeyondLimit(): void {
    for (const [botId, entry] of this.agents) {
      if (this.agents.size <= this.maxAgents) return;
      this.agents.delete(botId);
      void entry.agent.close().catch(() => undefined);
    }
  }

  private closeIdleAgents(): void {
    const cutoff = Date.now() - this.agentIdleMs;
    for (const [botId, entry] of this.agents) {
      // Use order: every later entry was used more recently.
      if (entry.lastUsed > cutoff) return;
      // A request longer than agentIdleMs keeps its Agent; it is stamped used again when it ends.
      if (entry.inFlight > 0) continue;
      this.agents.delete(botId);
      void entry.agent.close().catch(() => undefined);
    }
  }

  private lookupFor(allowedIps: string[] | null) {
    return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
      this.resolver.resolve(hostname).then(
        (candidates) => {
          const rules = { allowPrivate: this.options.allowPrivate, allowedIps };
          const refusal = addressRefusal(candidates, rules);
          if (refusal) return callback(new AddressRefusedError(refusal), []);
          const address = acceptableAddresses(candidates, rules)[0];
          const family = isIP(address);
          if (options.all) callback(null, [{ address, family }]);
          else callback(null, address, family);
        },
        (error: NodeJS.ErrnoException) => callback(error, []),
      );
    };
  }
}

/**
 * A Retry-After header (RFC 9110: delay-seconds or an HTTP date) as milliseconds from `now`; null when
 * absent or unreadable. A date in the past means no wait.
 */
export function retryAfterMsOf(header: string | string[] | undefined, now: number): number | null {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return null;
  if (/^\d{1,10}$/.test(value)) return Number(value) * 1000;
  // HTTP dates always name the day and end in GMT; a bare number or other text is not one.
  if (!/GMT$/.test(value)) return null;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
