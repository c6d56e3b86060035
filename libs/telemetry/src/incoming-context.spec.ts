import { defaultTextMapGetter, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { IncomingMessage } from 'node:http';
import { IncomingContextPolicy, incomingRequestAttributes, tracedClientAddress } from './incoming-context';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const SPAN_ID = 'b7ad6b7169203331';

const headersOf = (flags: string) => ({
  traceparent: `00-${TRACE_ID}-${SPAN_ID}-${flags}`,
  tracestate: `vendor=${'x'.repeat(200)}`,
  baggage: 'injected=from-end-user',
});

describe('the trace context of an incoming request', () => {
  it('is not continued by default: no parent, so the caller neither forces nor skips sampling (defect 7)', () => {
    const policy = new IncomingContextPolicy(new W3CTraceContextPropagator(), false);
    for (const flags of ['00', '01']) {
      const headers = headersOf(flags);
      policy.markIncoming(headers);
      const extracted = policy.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
      expect(trace.getSpanContext(extracted)).toBeUndefined();
    }
  });

  it('is continued, sampled flag and all, when OTEL_TRUST_INCOMING_CONTEXT is on', () => {
    const policy = new IncomingContextPolicy(new W3CTraceContextPropagator(), true);
    const headers = headersOf('01');
    policy.markIncoming(headers);
    const parent = trace.getSpanContext(policy.extract(ROOT_CONTEXT, headers, defaultTextMapGetter));
    expect(parent).toMatchObject({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: TraceFlags.SAMPLED });
  });

  it("always continues the services' own context, which a queue job carries", () => {
    const policy = new IncomingContextPolicy(new W3CTraceContextPropagator(), false);
    const job = { traceparent: `00-${TRACE_ID}-${SPAN_ID}-01` };
    expect(trace.getSpanContext(policy.extract(ROOT_CONTEXT, job, defaultTextMapGetter))?.spanId).toBe(SPAN_ID);
  });

  it('passes on no baggage: the only fields it writes are the W3C trace context', () => {
    const policy = new IncomingContextPolicy(new W3CTraceContextPropagator(), true);
    expect(policy.fields()).toEqual(['traceparent', 'tracestate']);
  });
});

describe('the attributes a request span takes from what the caller wrote', () => {
  const requestOf = (url: string, headers: Record<string, string>, remoteAddress = '10.0.0.7') =>
    ({ url, headers, socket: { remoteAddress } }) as unknown as IncomingMessage;

  it('names the client the app counts, not the first X-Forwarded-For entry a caller wrote', () => {
    const req = requestOf('/', { 'x-forwarded-for': '1.2.3.4, 203.0.113.9' });
    expect(tracedClientAddress(req, 0)).toBe('10.0.0.7');
    expect(tracedClientAddress(req, 1)).toBe('203.0.113.9');
    expect(tracedClientAddress(req, 2)).toBe('1.2.3.4');
    expect(tracedClientAddress(req, 5)).toBe('1.2.3.4');
  });

  it('bounds the user agent and the host and redacts the path and query', () => {
    const attributes = incomingRequestAttributes(
      requestOf(`/bot${'sbot_'.padEnd(48, 'a')}/sendMessage?text=hi`, {
        'user-agent': 'u'.repeat(10_000),
        host: `${'h'.repeat(1000)}:3002`,
      }),
      0,
    );
    expect(attributes).toMatchObject({ 'url.path': '/botREDACTED/sendMessage', 'url.query': 'text=REDACTED' });
    expect(String(attributes['user_agent.original']).length).toBe(256);
    expect(String(attributes['server.address']).length).toBe(255);
  });
});
