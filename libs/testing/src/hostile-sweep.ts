import type { INestApplication } from '@nestjs/common';
import fc from 'fast-check';
import request from 'supertest';

/** One operation of the OpenAPI document, as far as the sweep needs it. */
export interface SweptOperation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI form: `/api/v1/bots/my/{botId}`. */
  path: string;
  /** Names of the security schemes the operation accepts (empty: public). */
  schemes: string[];
  pathParams: string[];
  queryParams: string[];
  headerParams: string[];
  /** Property names of the JSON request body, when the operation takes one. */
  bodyProperties: string[] | null;
}

/** One generated request. */
export interface HostileRequest {
  url: string;
  query: Array<[string, string]>;
  headers: Record<string, string>;
  /** Sent as is; undefined sends no body. */
  body?: string;
}

export interface HostileSweepOptions {
  app: INestApplication;
  document: { paths: Record<string, Record<string, unknown>>; components?: { schemas?: Record<string, unknown> } };
  seed: number;
  /** Upper bound of requests per operation. */
  runsPerOperation: number;
  /** Wall-clock budget of the whole sweep; each operation gets an equal share. */
  budgetMs: number;
  /** Valid `Authorization` values per security scheme, so requests reach validation and beyond. */
  credentials: Record<string, string[]>;
  /** Why a response is not in the service's envelope, or undefined when it is. */
  envelopeProblem(status: number, body: unknown): string | undefined;
  /** Changes whenever any row of the service's database is written. */
  writeFingerprint(): Promise<string>;
  /** Values to use for a body property or query parameter instead of hostile ones (e.g. timeout: 0). */
  tame?: Record<string, unknown>;
}

export interface HostileSweepReport {
  /** `METHOD path` → requests sent. */
  sent: Map<string, number>;
  problems: string[];
}

const PATH_IDS = [
  '00000000-0000-0000-0000-000000000000',
  'e3b0c442-98fc-4c1c-9afb-f4c8996fb924',
  '0',
  '-1',
  '1e308',
  '99999999999999999999',
  'a'.repeat(300),
  '%00',
  'x%00y',
  '%E2%80%AE',
  '..%2F..%2Fetc',
  'null',
  'undefined',
  '%F0%9F%98%80',
  '%C0%AF',
  '__proto__',
  "1'%20OR%20'1'='1",
];

/** Strings that break parsers, encoders and SQL: NULs, lone surrogates, huge numbers in text, long runs. */
const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\u202e\u0041',
  '😀'.repeat(50),
  'x'.repeat(100_000),
  '1e308',
  '-1e308',
  '99999999999999999999',
  'NaN',
  'Infinity',
  '0x1F',
  '<script>',
  "'; DROP TABLE users; --",
  '../../../etc/passwd',
  'https://127.0.0.1/',
  '2026-02-30T25:61:00Z',
  'true',
];

const HUGE_NUMBERS = [1e308, -1e308, 2 ** 53 + 1, -(2 ** 63), 99999999999999999999, 0.1, -0, 1e-320, 2147483648];

/** JSON nested `depth` levels deep, as text (serialising a deep object would overflow the stack). */
function nestedJson(depth: number, open: string, close: string): string {
  return `${open.repeat(depth)}${close.repeat(depth)}`;
}

const leafValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(...HUGE_NUMBERS),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(...HOSTILE_STRINGS),
);

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: leafValue },
  { weight: 1, arbitrary: fc.array(leafValue, { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 10 }), leafValue, { maxKeys: 4 }) },
  { weight: 1, arbitrary: fc.array(fc.array(fc.dictionary(fc.string({ maxLength: 5 }), leafValue)), { maxLength: 3 }) },
);

/** A marker replaced by deeply nested JSON once serialised. */
const DEEP = '__hostile_sweep_deep__';

function bodyArbitrary(properties: string[], tame: Record<string, unknown>): fc.Arbitrary<string> {
  const key = fc.oneof(
    { weight: 4, arbitrary: properties.length > 0 ? fc.constantFrom(...properties) : fc.string({ maxLength: 8 }) },
    { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'a\u0000b', 'x'.repeat(500)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  );
  const value = fc.oneof({ weight: 12, arbitrary: hostileValue }, { weight: 1, arbitrary: fc.constant(DEEP) });
  const object = fc
    .dictionary(key, value, { maxKeys: Math.max(properties.length + 2, 4) })
    .map((body) => JSON.stringify(tameValues(body, tame)));
  const depth = fc.integer({ min: 2, max: 3000 });
  return fc.oneof(
    { weight: 10, arbitrary: object },
    // Each property once with a hostile value: the closest to a valid body a blind generator gets.
    {
      weight: 4,
      arbitrary: fc
        .tuple(...(properties.length > 0 ? properties : ['x']).map(() => fc.option(hostileValue, { nil: undefined })))
        .map((values) => {
          const body = Object.fromEntries((properties.length > 0 ? properties : ['x']).map((p, i) => [p, values[i]]));
          return JSON.stringify(tameValues(body, tame));
        }),
    },
    { weight: 1, arbitrary: hostileValue.map((v) => JSON.stringify(v) ?? 'null') },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '{',
        '{"a":',
        '{"a":1,}',
        "{'a':1}",
        'undefined',
        '',
        '\u0000',
        '{"__proto__":{"admin":true}}',
      ),
    },
    // Duplicated fields: JSON.parse keeps the last, a naive check might read the first.
    {
      weight: 1,
      arbitrary: fc
        .tuple(key, leafValue, leafValue)
        .map(([k, a, b]) => `{${JSON.stringify(k)}:${JSON.stringify(a)},${JSON.stringify(k)}:${JSON.stringify(b)}}`),
    },
    { weight: 1, arbitrary: depth.map((d) => nestedJson(d, '[', ']')) },
    { weight: 1, arbitrary: depth.map((d) => `${'{"a":'.repeat(d)}null${'}'.repeat(d)}`) },
  );
}

/** Replaces values the sweep must keep harmless (a long-poll timeout) and expands the deep marker. */
function tameValues(body: Record<string, unknown>, tame: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (key in tame && isNumberLike(value)) out[key] = tame[key];
    else out[key] = value;
  }
  return out;
}

function isNumberLike(value: unknown): boolean {
  return (
    typeof value === 'number' || (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value)))
  );
}

function requestArbitrary(
  op: SweptOperation,
  credentials: Record<string, string[]>,
  tame: Record<string, unknown>,
): fc.Arbitrary<HostileRequest> {
  const valid = op.schemes.flatMap((scheme) => credentials[scheme] ?? []);
  const foreign = Object.entries(credentials)
    .filter(([scheme]) => !op.schemes.includes(scheme))
    .flatMap(([, values]) => values);
  const authorization = fc.oneof(
    { weight: valid.length > 0 ? 12 : 0, arbitrary: valid.length > 0 ? fc.constantFrom(...valid) : fc.constant('') },
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'Bearer',
        'Bearer ',
        'Bearer garbage',
        'Basic dXNlcjpwYXNz',
        `Bearer ${'a'.repeat(5000)}`,
        'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.',
        'Bearer sbot_' + '0'.repeat(43),
        'Bearer sop_' + 'A'.repeat(40),
      ),
    },
    {
      weight: foreign.length > 0 ? 1 : 0,
      arbitrary: foreign.length > 0 ? fc.constantFrom(...foreign) : fc.constant(''),
    },
  );
  const pathValues = fc.tuple(...op.pathParams.map(() => fc.constantFrom(...PATH_IDS)));
  const queryValue = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('1e308', '99999999999999999999', '-1', '0', '1.5', '-1e308') },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_STRINGS.filter((s) => s.length < 1000)) },
    { weight: 2, arbitrary: fc.integer().map(String) },
    { weight: 2, arbitrary: fc.string({ maxLength: 20 }) },
  );
  const queryName = op.queryParams.length > 0 ? fc.constantFrom(...op.queryParams) : fc.string({ maxLength: 8 });
  const query = fc.oneof(
    // One known parameter with a hostile value and nothing else: the request most likely to pass every
    // other check and reach the code that uses the value.
    { weight: 3, arbitrary: fc.tuple(queryName, queryValue).map((pair) => [pair]) },
    // Several, unknown names among them; repeating a name sends an array where a scalar is expected.
    {
      weight: 1,
      arbitrary: fc.array(
        fc.tuple(
          fc.oneof({ weight: 8, arbitrary: queryName }, { weight: 1, arbitrary: fc.string({ maxLength: 8 }) }),
          queryValue,
        ),
        { maxLength: 3 },
      ),
    },
  );
  const idempotencyKey = fc.oneof(
    { weight: 6, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: fc.constantFrom('', 'x'.repeat(300), 'not a uuid', '%00') },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
  const contentType = fc.constantFrom(
    'application/json',
    'application/json',
    'application/json',
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/json; charset=utf-16',
  );
  const body = op.bodyProperties
    ? fc.option(bodyArbitrary(op.bodyProperties, tame), { nil: undefined, freq: 8 })
    : fc.constant(undefined);
  return fc
    .record({
      authorization,
      pathValues,
      query,
      idempotencyKey,
      contentType,
      body,
      origin: fc.option(fc.constantFrom(...HOSTILE_STRINGS.slice(0, 6), 'https://evil.example'), { freq: 4 }),
    })
    .map(({ authorization, pathValues, query, idempotencyKey, contentType, body, origin }) => {
      let url = op.path;
      op.pathParams.forEach((name, index) => {
        url = url.replace(`{${name}}`, pathValues[index]);
      });
      const headers: Record<string, string> = {};
      if (authorization !== undefined) headers.Authorization = authorization;
      if (op.headerParams.includes('Idempotency-Key') && idempotencyKey !== undefined) {
        headers['Idempotency-Key'] = idempotencyKey;
      }
      if (origin && !/[\u0000-\u001f\u007f-\uffff]/.test(origin)) headers.Origin = origin;
      const tamedQuery = query.map(([name, value]): [string, string] =>
        name in tame && isNumberLike(value) ? [name, String(tame[name])] : [name, value],
      );
      if (body !== undefined) headers['Content-Type'] = contentType;
      return {
        url,
        query: tamedQuery,
        headers,
        body: body?.split(JSON.stringify(DEEP)).join(nestedJson(5000, '[', ']')),
      };
    });
}

/** Every `/api/` operation of the document with what the generator needs to know about it. */
export function sweptOperations(document: HostileSweepOptions['document']): SweptOperation[] {
  const operations: SweptOperation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith('/api/')) continue;
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
      const operation = item[method] as OpenApiOperation | undefined;
      if (!operation) continue;
      const parameters = operation.parameters ?? [];
      const names = (where: string) => parameters.filter((p) => p.in === where).map((p) => p.name);
      operations.push({
        method,
        path,
        schemes: (operation.security ?? []).flatMap((requirement) => Object.keys(requirement)),
        pathParams: names('path'),
        queryParams: names('query'),
        headerParams: names('header'),
        bodyProperties: operation.requestBody ? bodyPropertiesOf(operation.requestBody, document) : null,
      });
    }
  }
  return operations;
}

interface OpenApiOperation {
  parameters?: Array<{ in: string; name: string }>;
  security?: Array<Record<string, unknown>>;
  requestBody?: { content?: Record<string, { schema?: SchemaRef }> };
}

interface SchemaRef {
  $ref?: string;
  properties?: Record<string, unknown>;
  allOf?: SchemaRef[];
}

function bodyPropertiesOf(
  body: NonNullable<OpenApiOperation['requestBody']>,
  document: HostileSweepOptions['document'],
): string[] {
  const schema = body.content?.['application/json']?.schema;
  const names = new Set<string>();
  const visit = (node: SchemaRef | undefined, depth: number) => {
    if (!node || depth > 5) return;
    if (node.$ref) visit(document.components?.schemas?.[node.$ref.split('/').pop() ?? ''] as SchemaRef, depth + 1);
    for (const name of Object.keys(node.properties ?? {})) names.add(name);
    for (const part of node.allOf ?? []) visit(part, depth + 1);
  };
  visit(schema, 0);
  return [...names];
}

/**
 * Sends seeded, generated malformed requests to every operation and records each answer that is a
 * 5xx, is not in the service's envelope, or wrote a row although it was refused.
 */
export async function runHostileSweep(options: HostileSweepOptions): Promise<HostileSweepReport> {
  const operations = sweptOperations(options.document);
  const sent = new Map<string, number>();
  const problems = new Set<string>();
  const server = options.app.getHttpServer();
  const shareMs = Math.floor(options.budgetMs / operations.length);
  let fingerprint = await options.writeFingerprint();

  for (const [index, op] of operations.entries()) {
    const label = `${op.method.toUpperCase()} ${op.path}`;
    sent.set(label, 0);
    const deadline = Date.now() + shareMs;
    const samples = fc.sample(requestArbitrary(op, options.credentials, options.tame ?? {}), {
      seed: options.seed + index,
      numRuns: options.runsPerOperation,
    });
    for (const req of samples) {
      if (Date.now() >= deadline) break;
      const res = await send(server, op.method, req);
      sent.set(label, (sent.get(label) ?? 0) + 1);
      const text = typeof res.body === 'string' ? res.body : '';
      const describe = () => `${label} ${describeRequest(req)} → ${res.status} ${truncate(text, 300)}`;
      if (res.status >= 500) problems.add(`5xx: ${describe()}`);
      const body = parseJson(text);
      const envelope = options.envelopeProblem(res.status, body);
      if (envelope) problems.add(`not in the envelope (${envelope}): ${describe()}`);
      const after = await options.writeFingerprint();
      if (res.status >= 400 && after !== fingerprint) {
        problems.add(`refused but wrote to ${changedTables(fingerprint, after)}: ${describe()}`);
      }
      fingerprint = after;
    }
  }
  return { sent, problems: [...problems] };
}

async function send(server: unknown, method: SweptOperation['method'], req: HostileRequest) {
  const search = req.query.map(([k, v]) => `${encodeLoosely(k)}=${encodeLoosely(v)}`).join('&');
  let call = request(server as Parameters<typeof request>[0])[method](search ? `${req.url}?${search}` : req.url);
  for (const [name, value] of Object.entries(req.headers)) call = call.set(name, value);
  if (req.body !== undefined) call = call.send(req.body);
  return call.buffer(true).parse((res, done) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (text += chunk));
    res.on('end', () => done(null, text));
  });
}

function changedTables(before: string, after: string): string {
  const old = new Set(before.split('|'));
  return after
    .split('|')
    .filter((entry) => !old.has(entry))
    .map((entry) => entry.split('=')[0])
    .join(', ');
}

/** encodeURIComponent, except that a lone surrogate becomes the invalid UTF-8 it would be on the wire. */
function encodeLoosely(text: string): string {
  return Array.from(text, (char) => {
    try {
      return encodeURIComponent(char);
    } catch {
      return '%ED%A0%80';
    }
  }).join('');
}

function describeRequest(req: HostileRequest): string {
  const query = req.query.length > 0 ? ` query=${truncate(JSON.stringify(req.query), 200)}` : '';
  const auth = req.headers.Authorization ? ` auth=${truncate(req.headers.Authorization, 30)}` : ' no-auth';
  const body = req.body !== undefined ? ` body(${req.headers['Content-Type']})=${truncate(req.body, 200)}` : '';
  return `${req.url}${query}${auth}${body}`;
}

function truncate(text: string | undefined, max: number): string {
  if (!text) return '';
  return text.length > max ? `${text.slice(0, max)}…(${text.length})` : text;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Sums row counts and the newest row version of every table, so any insert, update or delete changes it. */
export function writeFingerprintSql(tables: readonly string[]): string {
  return `SELECT ${tables
    .map((t) => `(SELECT '${t}=' || count(*) || ':' || coalesce(max(xmin::text::bigint), 0) FROM "${t}")`)
    .join(" || '|' || ")} AS fingerprint`;
}

/** Prints what a sweep sent per operation, so a CI log shows its reach; returns the number of requests. */
export function printSweepReport(service: string, report: HostileSweepReport): number {
  const total = [...report.sent.values()].reduce((sum, n) => sum + n, 0);
  process.stdout.write(
    `${service} hostile sweep: ${total} requests over ${report.sent.size} operations\n` +
      [...report.sent].map(([route, n]) => `  ${String(n).padStart(4)}  ${route}`).join('\n') +
      '\n',
  );
  return total;
}
