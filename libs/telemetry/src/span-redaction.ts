import { type Attributes, type AttributeValue, type Link, SpanKind, type SpanStatus } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter, TimedEvent } from '@opentelemetry/sdk-trace';

export const REDACTED = 'REDACTED';

/**
 * Query parameters whose values say how a call was paged or shaped, and nothing about who called or
 * what they wrote: their values are kept. Every other parameter is recorded by name only, so a message
 * text, a signature or a search for a person never reaches a trace.
 */
const SHAPE_PARAMETERS = new Set([
  'limit',
  'offset',
  'page',
  'pageSize',
  'page_size',
  'timeout',
  'status',
  'review_status',
  'type',
  'size',
  'expires',
]);
const MAX_QUERY_PARAMETERS = 16;
const MAX_KEPT_VALUE = 64;
const PARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_.[\]-]{0,63}$/;
const MAX_PATH = 512;
const MAX_QUERY = 512;

/** Credentials with a shape of their own, wherever they appear: bot tokens and application tokens. */
const TOKEN = /(sbot|sop)_[0-9A-Za-z]+/g;
/** The Telegram face carries the bot token as a path segment: `/bot<token>/…`, `/file/bot<token>/…`, under `/telegram` too. */
const TELEGRAM_TOKEN_SEGMENT = /^((?:\/telegram)?(?:\/file)?\/bot)(?!:token(?:\/|$))[^/]+/i;
const URL_ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;
const METHOD_AND_PATH = /^([A-Z]+) (\/\S*)$/;

/** Any bot or application token in the text, replaced. */
export function redactTokens(text: string): string {
  return text.replace(TOKEN, `$1_${REDACTED}`);
}

/** A request path without the token of a Telegram-face path, bounded. */
export function safePath(path: string): string {
  return redactTokens(path.replace(TELEGRAM_TOKEN_SEGMENT, `$1${REDACTED}`)).slice(0, MAX_PATH);
}

/**
 * A query string (with or without its `?`) with the values of shape parameters only; every other
 * parameter keeps its name (if it looks like one) and loses its value. Undefined when there is none.
 */
export function safeQuery(search: string): string | undefined {
  const query = search.startsWith('?') ? search.slice(1) : search;
  if (query === '') return undefined;
  const kept: string[] = [];
  for (const [name, value] of new URLSearchParams(query)) {
    if (kept.length === MAX_QUERY_PARAMETERS) {
      kept.push('…');
      break;
    }
    const safeName = PARAMETER_NAME.test(name) ? redactTokens(name) : REDACTED;
    const safeValue = SHAPE_PARAMETERS.has(name) ? redactTokens(value.slice(0, MAX_KEPT_VALUE)) : REDACTED;
    kept.push(`${encodeURIComponent(safeName)}=${encodeURIComponent(safeValue)}`);
  }
  return kept.join('&').slice(0, MAX_QUERY);
}

/**
 * A URL (absolute, or a path with its query) as a trace may hold it. An outgoing call's URL is the
 * receiver's (a bot's webhook, whose path or query may carry the operator's own secret): only its origin
 * is kept. An incoming request keeps its path without a token and its query by the rule of safeQuery.
 */
export function safeUrl(url: string, outgoing: boolean): string {
  const origin = URL_ORIGIN.exec(url)?.[0] ?? '';
  const rest = url.slice(origin.length);
  const queryAt = rest.indexOf('?');
  const path = queryAt === -1 ? rest : rest.slice(0, queryAt);
  // Credentials in the authority (`user:password@`) go whichever way the URL went.
  const safeOrigin = origin.replace(/\/\/[^/]*@/, '//');
  if (outgoing) return `${safeOrigin}${path === '' || path === '/' ? path : `/${REDACTED}`}`;
  const query = queryAt === -1 ? undefined : safeQuery(rest.slice(queryAt + 1));
  return `${safeOrigin}${safePath(path)}${query === undefined ? '' : `?${query}`}`;
}

/** Attributes that hold a URL or a piece of one, under the names the instrumentations use. */
const URL_ATTRIBUTES = new Set(['url.full', 'http.url', 'http.target', 'url.original']);

function safeValue(value: AttributeValue): AttributeValue {
  if (typeof value === 'string') return redactTokens(value);
  if (Array.isArray(value) && value.some((item) => typeof item === 'string')) {
    return (value as Array<string | null | undefined>).map((item) =>
      typeof item === 'string' ? redactTokens(item) : item,
    );
  }
  return value;
}

/** Every attribute with tokens redacted, and the URL attributes by the rule of safeUrl. */
export function safeAttributes(attributes: Attributes, outgoing: boolean): Attributes {
  const safe: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined) continue;
    if (typeof value === 'string' && URL_ATTRIBUTES.has(key)) safe[key] = safeUrl(value, outgoing);
    else if (typeof value === 'string' && key === 'url.path')
      safe[key] = outgoing ? safeUrl(value, true) : safePath(value);
    else if (typeof value === 'string' && key === 'url.query') {
      const query = outgoing ? (value === '' ? undefined : REDACTED) : safeQuery(value);
      if (query !== undefined) safe[key] = query;
    } else safe[key] = safeValue(value);
  }
  return safe;
}

/** A span name with a request path (`GET /bot<token>/getMe`) keeps the method and the path without its token. */
export function safeSpanName(name: string): string {
  const match = METHOD_AND_PATH.exec(name);
  if (!match) return redactTokens(name);
  const queryAt = match[2].indexOf('?');
  return `${match[1]} ${safePath(queryAt === -1 ? match[2] : match[2].slice(0, queryAt))}`;
}

/**
 * An exception keeps its type and where it was thrown; its message (and the first line of the stack,
 * which repeats it) can hold what a caller sent, so it stays in the logs, which redact, not in traces.
 */
function safeEvent(event: TimedEvent, outgoing: boolean): TimedEvent {
  if (event.name !== 'exception' || !event.attributes) {
    return {
      ...event,
      name: redactTokens(event.name),
      attributes: event.attributes && safeAttributes(event.attributes, outgoing),
    };
  }
  const { 'exception.message': _message, 'exception.stacktrace': stack, ...rest } = event.attributes;
  const frames = typeof stack === 'string' ? stack.split('\n').filter((line) => /^\s+at /.test(line)) : [];
  return {
    ...event,
    attributes: {
      ...safeAttributes(rest, outgoing),
      ...(frames.length > 0 ? { 'exception.stacktrace': redactTokens(frames.join('\n')) } : {}),
    },
  };
}

/** The span as it may leave the process: names, attributes, events and links redacted, no status message. */
export function redactSpan(span: ReadableSpan): ReadableSpan {
  const outgoing = span.kind === SpanKind.CLIENT;
  const status: SpanStatus = { code: span.status.code };
  return {
    name: safeSpanName(span.name),
    kind: span.kind,
    spanContext: () => span.spanContext(),
    parentSpanContext: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    status,
    attributes: safeAttributes(span.attributes, outgoing),
    links: span.links.map((link): Link =>
      link.attributes ? { ...link, attributes: safeAttributes(link.attributes, false) } : link,
    ),
    events: span.events.map((event) => safeEvent(event, outgoing)),
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

/**
 * The last step before spans leave the process, whatever instrumentation recorded them: the NestJS
 * instrumentation records the raw URL, pg the statement, BullMQ a job's failure, an exception its
 * message. Runs on exported (sampled) spans only, in the batch processor's export, off the request path.
 */
export class RedactingSpanExporter implements SpanExporter {
  constructor(private readonly inner: SpanExporter) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.inner.export(spans.map(redactSpan), resultCallback);
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
