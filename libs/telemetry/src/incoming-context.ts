import {
  type Attributes,
  type Context,
  createContextKey,
  ROOT_CONTEXT,
  type SpanContext,
  trace,
  TraceFlags,
  type TextMapGetter,
  type TextMapPropagator,
  type TextMapSetter,
} from '@opentelemetry/api';
import type { IncomingMessage } from 'node:http';
import type { Span, SpanProcessor } from '@opentelemetry/sdk-trace';
import { safePath, safeQuery } from './span-redaction';

/** The caller's span context of an incoming request whose context is not trusted: a link, never a parent. */
const CALLER_CONTEXT = createContextKey('open-platform incoming caller context');

/** Caller-written values a request span records, each bounded: a header can be 16 KB. */
const MAX_USER_AGENT = 256;
const MAX_HOST = 255;
const MAX_ADDRESS = 64;

/**
 * What the services take from an incoming request's trace context. Untrusted (the default for
 * internet-facing APIs), a request starts a trace of its own, sampled by this process's sampler; the
 * caller's `traceparent` is kept as a link (its trace and span id, nothing more), so a caller can neither
 * force nor skip sampling, nor make the services carry its `tracestate` to the receivers of webhooks.
 * Trusted (behind a gateway that sets the context itself), the request continues the caller's trace and
 * honours its sampled flag, as W3C Trace Context describes. Queue jobs, which carry the services' own
 * context, are always continued. Baggage is never read, so it never reaches a webhook either: this
 * propagator is the only one installed.
 */
export class IncomingContextPolicy implements TextMapPropagator {
  /** The header objects of incoming requests, marked just before the HTTP instrumentation extracts from them. */
  private readonly incoming = new WeakSet<object>();

  constructor(
    private readonly traceContext: TextMapPropagator,
    readonly trustIncoming: boolean,
  ) {}

  /** Called by the HTTP server hook with the request's headers, which the instrumentation extracts from next. */
  markIncoming(headers: object): void {
    if (!this.trustIncoming) this.incoming.add(headers);
  }

  inject(context: Context, carrier: unknown, setter: TextMapSetter): void {
    this.traceContext.inject(context, carrier, setter);
  }

  extract(context: Context, carrier: unknown, getter: TextMapGetter): Context {
    if (typeof carrier !== 'object' || carrier === null || !this.incoming.has(carrier)) {
      return this.traceContext.extract(context, carrier, getter);
    }
    this.incoming.delete(carrier);
    // The caller's tracestate is not even parsed: a link carries the ids alone.
    const withoutState: TextMapGetter = {
      keys: (c) => getter.keys(c),
      get: (c, key) => (key === 'tracestate' ? undefined : getter.get(c, key)),
    };
    const caller = trace.getSpanContext(this.traceContext.extract(ROOT_CONTEXT, carrier, withoutState));
    if (!caller) return context;
    const link: SpanContext = {
      traceId: caller.traceId,
      spanId: caller.spanId,
      traceFlags: TraceFlags.NONE,
      isRemote: true,
    };
    return context.setValue(CALLER_CONTEXT, link);
  }

  fields(): string[] {
    return this.traceContext.fields();
  }
}

/** Links a request's root span to the caller's context that IncomingContextPolicy kept aside. */
export class CallerLinkProcessor implements SpanProcessor {
  onStart(span: Span, parentContext: Context): void {
    const caller = parentContext.getValue(CALLER_CONTEXT) as SpanContext | undefined;
    // Only the request's own span: its children have it as their parent and need no link.
    if (caller && trace.getSpan(parentContext) === undefined) span.addLink({ context: caller });
  }

  onEnd(): void {}

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * The client as the app counts it: TRUST_PROXY_HOPS entries from the right of `X-Forwarded-For`, behind
 * the socket's peer, as Express computes `req.ip` with the same setting. The instrumentation's own
 * choice (the first `Forwarded`/`X-Forwarded-For` entry) is whatever the caller wrote.
 */
export function tracedClientAddress(req: IncomingMessage, trustedHops: number): string | undefined {
  const peer = req.socket?.remoteAddress;
  const header = req.headers['x-forwarded-for'];
  if (trustedHops === 0 || typeof header !== 'string') return peer?.slice(0, MAX_ADDRESS);
  const forwarded = header.split(',');
  const index = Math.max(forwarded.length - trustedHops, 0);
  return forwarded[index].trim().slice(0, MAX_ADDRESS) || peer?.slice(0, MAX_ADDRESS);
}

/**
 * The attributes of an incoming request's span that come from what the caller wrote, replacing the
 * instrumentation's own: the path without a Telegram-face token, the query by the rule of safeQuery,
 * the user agent and host bounded, and the client as the app counts it.
 */
export function incomingRequestAttributes(req: IncomingMessage, trustedHops: number): Attributes {
  const url = req.url ?? '/';
  const queryAt = url.indexOf('?');
  const host = typeof req.headers.host === 'string' ? req.headers.host.replace(/:\d*$/, '') : undefined;
  return {
    'url.path': safePath(queryAt === -1 ? url : url.slice(0, queryAt)),
    'url.query': queryAt === -1 ? undefined : safeQuery(url.slice(queryAt + 1)),
    'user_agent.original': req.headers['user-agent']?.slice(0, MAX_USER_AGENT),
    'server.address': host?.slice(0, MAX_HOST),
    'client.address': tracedClientAddress(req, trustedHops),
  };
}
