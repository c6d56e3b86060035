import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { redactSpan, safePath, safeQuery, safeSpanName, safeUrl } from './span-redaction';

const TOKEN = `sbot_${'A1b2C3'.repeat(7)}x`;
const APP_TOKEN = `sop_${'Z9y8'.repeat(11)}`;

/** A finished span as the batch processor hands it to the exporter. */
function spanOf(
  kind: SpanKind,
  name: string,
  attributes: ReadableSpan['attributes'],
  extra: Partial<ReadableSpan> = {},
) {
  return {
    name,
    kind,
    spanContext: () => ({ traceId: '1'.repeat(32), spanId: '2'.repeat(16), traceFlags: 1 }),
    startTime: [0, 0],
    endTime: [0, 1],
    status: { code: SpanStatusCode.UNSET },
    attributes,
    links: [],
    events: [],
    duration: [0, 1],
    ended: true,
    resource: {} as ReadableSpan['resource'],
    instrumentationScope: { name: 'test' },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
    ...extra,
  } as ReadableSpan;
}

describe('what a span may hold of a request', () => {
  it('takes the bot token out of every path of the Telegram face and keeps the rest of the path (defect 3)', () => {
    expect(safePath(`/bot${TOKEN}/getMe`)).toBe('/botREDACTED/getMe');
    expect(safePath(`/telegram/bot${TOKEN}/sendMessage`)).toBe('/telegram/botREDACTED/sendMessage');
    expect(safePath(`/file/bot${TOKEN}/documents/a.txt`)).toBe('/file/botREDACTED/documents/a.txt');
    expect(safePath(`/telegram/file/bot${TOKEN}/x`)).toBe('/telegram/file/botREDACTED/x');
    // A malformed token may be a real one mistyped: it goes too.
    expect(safePath('/botnot-quite-a-token/getMe')).toBe('/botREDACTED/getMe');
    // Route patterns and other paths are left alone.
    expect(safePath('/telegram/bot:token/:method')).toBe('/telegram/bot:token/:method');
    expect(safePath('/api/v1/bots/my/abc/token')).toBe('/api/v1/bots/my/abc/token');
    expect(safePath(`/api/v1/bots/x/${APP_TOKEN}`)).toBe('/api/v1/bots/x/sop_REDACTED');
  });

  it('keeps the values of paging parameters only; message text, signatures and searches lose theirs (defect 3)', () => {
    expect(safeQuery('?chat_id=42&text=hello%20there&limit=5')).toBe('chat_id=REDACTED&text=REDACTED&limit=5');
    expect(safeQuery('type=image%2Fpng&expires=1700000000&signature=abc')).toBe(
      'type=image%2Fpng&expires=1700000000&signature=REDACTED',
    );
    expect(safeQuery('')).toBeUndefined();
    expect(safeQuery(`${TOKEN}=1`)).toBe('sbot_REDACTED=REDACTED');
    expect(safeQuery('<script>=1')).toBe('REDACTED=REDACTED');
  });

  it('bounds what a caller can make it record', () => {
    const many = Array.from({ length: 500 }, (_, i) => `p${i}=${'v'.repeat(100)}`).join('&');
    const query = safeQuery(many)!;
    expect(query.split('&')).toHaveLength(17);
    expect(query.length).toBeLessThanOrEqual(512);
    expect(safePath(`/${'a'.repeat(20_000)}`).length).toBe(512);
    expect(safeQuery(`limit=${'9'.repeat(1000)}`)).toBe(`limit=${'9'.repeat(64)}`);
  });

  it("keeps only the origin of an outgoing call's URL, whose path or query may hold the receiver's secret", () => {
    expect(safeUrl('https://hooks.example.com/services/T0/B0/s3cr3t?key=k', true)).toBe(
      'https://hooks.example.com/REDACTED',
    );
    expect(safeUrl('https://user:pass@hooks.example.com:8443/', true)).toBe('https://hooks.example.com:8443/');
    expect(safeUrl('https://hooks.example.com', true)).toBe('https://hooks.example.com');
  });

  it('applies the path and query rules to the raw URL an instrumentation recorded', () => {
    expect(safeUrl(`/bot${TOKEN}/sendMessage?chat_id=1&text=secret%20words`, false)).toBe(
      '/botREDACTED/sendMessage?chat_id=REDACTED&text=REDACTED',
    );
    expect(safeUrl(`http://api.example.com/bot${TOKEN}/getMe`, false)).toBe('http://api.example.com/botREDACTED/getMe');
    expect(safeSpanName(`GET /bot${TOKEN}/getMe?text=x`)).toBe('GET /botREDACTED/getMe');
    expect(safeSpanName('pg.query:SELECT bot')).toBe('pg.query:SELECT bot');
  });
});

describe('redactSpan', () => {
  it('redacts the URL attributes of any instrumentation, tokens anywhere, and exception messages (defect 3)', () => {
    const error = new Error(`unsupported tag "secret words" in ${TOKEN}`);
    const span = redactSpan(
      spanOf(
        SpanKind.INTERNAL,
        'POST /bot:token/:method',
        {
          'url.full': `/bot${TOKEN}/sendMessage?text=secret%20words`,
          'http.route': '/bot:token/:method',
          'db.query.text': `SELECT 1 -- ${APP_TOKEN}`,
          'bullmq.job.ids': [TOKEN, 'job-1'],
          'webhook.attempt': 1,
        },
        {
          status: { code: SpanStatusCode.ERROR, message: error.message },
          events: [
            {
              name: 'exception',
              time: [0, 0],
              attributes: {
                'exception.type': 'Error',
                'exception.message': error.message,
                'exception.stacktrace': error.stack,
              },
            },
          ],
        },
      ),
    );
    const exported = JSON.stringify({
      name: span.name,
      attributes: span.attributes,
      events: span.events,
      status: span.status,
    });
    expect(exported).not.toContain(TOKEN);
    expect(exported).not.toContain(APP_TOKEN);
    expect(exported).not.toContain('secret words');
    expect(span.attributes).toMatchObject({
      'url.full': '/botREDACTED/sendMessage?text=REDACTED',
      'http.route': '/bot:token/:method',
      'bullmq.job.ids': ['sbot_REDACTED', 'job-1'],
      'webhook.attempt': 1,
    });
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(span.events[0].attributes?.['exception.type']).toBe('Error');
    expect(String(span.events[0].attributes?.['exception.stacktrace'])).toMatch(/^\s+at /);
    expect(span.spanContext().spanId).toBe('2'.repeat(16));
  });

  it("keeps an outgoing call's origin and drops its path and query", () => {
    const span = redactSpan(
      spanOf(SpanKind.CLIENT, 'POST', {
        'url.full': 'https://receiver.example/hook/s3cr3t?token=t0k3n',
        'url.path': '/hook/s3cr3t',
        'url.query': '?token=t0k3n',
        'server.address': 'receiver.example',
      }),
    );
    expect(span.attributes).toEqual({
      'url.full': 'https://receiver.example/REDACTED',
      'url.path': '/REDACTED',
      'url.query': 'REDACTED',
      'server.address': 'receiver.example',
    });
  });
});
