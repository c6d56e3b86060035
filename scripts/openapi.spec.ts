import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { writeOpenApiDocuments } from './openapi';

const ROOT = join(__dirname, '..');

describe('npm run openapi', () => {
  let out: string;

  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), 'openapi-'));
  });

  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('writes both documents with no database or Redis to talk to', async () => {
    const connect = jest.spyOn(Socket.prototype, 'connect');
    const files = await writeOpenApiDocuments(out, { DB_PORT: '1', REDIS_URL: 'redis://127.0.0.1:1' });

    // pg and ioredis both open their connections through net.Socket#connect.
    expect(connect).not.toHaveBeenCalled();
    connect.mockRestore();

    expect(files).toEqual([join(out, 'voucher-api.json'), join(out, 'bot-api.json')]);
    for (const file of files) {
      const document = JSON.parse(readFileSync(file, 'utf8'));
      expect(document.openapi).toBe('3.0.3');
      expect(Object.keys(document.paths)).toEqual(
        expect.arrayContaining(['/health/live', '/health/ready', '/metrics']),
      );
      expect(Object.keys(document.paths).some((path) => path.startsWith('/api/v1/'))).toBe(true);
    }
  });

  it('matches the checked-in documents and client types, so a change of the API cannot ship without them', () => {
    // A child process: the client generator is an ES module graph that Jest's loader cannot require.
    execFileSync(
      'npm',
      ['run', '--silent', 'openapi', '--', '--out', join(out, 'docs'), '--clients', join(out, 'clients')],
      {
        cwd: ROOT,
        stdio: 'pipe',
      },
    );
    const generated = [
      ...['voucher-api.json', 'bot-api.json'].map((name) => join('docs', name)),
      ...['voucher-api', 'bot-api'].map((name) => join('clients', name, 'schema.d.ts')),
    ];
    for (const file of generated) {
      const committed = readFileSync(
        join(ROOT, file.startsWith('docs') ? join('docs', 'openapi', file.slice(5)) : file),
        'utf8',
      );
      expect({ file, current: readFileSync(join(out, file), 'utf8') === committed }).toEqual({ file, current: true });
    }
  });

  it('types every request field by what it takes: no string, date or nullable text documented as an object', async () => {
    const files = await writeOpenApiDocuments(out);
    for (const file of files) {
      const document = JSON.parse(readFileSync(file, 'utf8'));
      expect(mistypedRequestFields(document)).toEqual([]);
    }
  });

  it('documents the Idempotency-Key of issue, redeem and reverse with its format, length and lifetime', async () => {
    const [voucherFile] = await writeOpenApiDocuments(out);
    const document = JSON.parse(readFileSync(voucherFile, 'utf8'));
    const runtime = '/api/v1/open-platform/vouchers';
    for (const path of [`${runtime}/issue`, `${runtime}/redeem`, `${runtime}/redemptions/{redemptionId}/reverse`]) {
      const header = document.paths[path].post.parameters.find((p: Schema) => p.name === 'Idempotency-Key');
      expect(header).toMatchObject({
        in: 'header',
        required: true,
        schema: { type: 'string', minLength: 1, maxLength: 255 },
      });
      expect(header.description).toMatch(/1–255 printable ASCII characters/);
      expect(header.description).toMatch(/kept 24 hours/);
    }
  });

  it("documents the plaintext token in token creation's 201 answer", async () => {
    const [voucherFile] = await writeOpenApiDocuments(out);
    const document = JSON.parse(readFileSync(voucherFile, 'utf8'));
    const created = document.paths['/api/v1/open-platform/applications/{id}/tokens'].post.responses['201'];
    const data = created.content['application/json'].schema.allOf[1].properties.data;
    const view = document.components.schemas[data.$ref.split('/').pop()];
    expect(view.required).toEqual(expect.arrayContaining(['token', 'prefix', 'permissions', 'expires_at']));
    expect(view.properties.token).toMatchObject({ type: 'string' });
    expect(view.properties.token.description).toMatch(/this response only/);
  });
});

type Schema = Record<string, any>;

/** Keywords that only mean something for a string; beside `type: object` they betray a lost `type: String`. */
const STRING_KEYWORDS = ['format', 'maxLength', 'minLength', 'pattern'];

/** `Schema.field` of every request-body property (nested schemas included) that says object but is text. */
function mistypedRequestFields(document: Schema): string[] {
  const schemas: Record<string, Schema> = document.components?.schemas ?? {};
  const visited = new Set<string>();
  const found: string[] = [];
  const visit = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    const ref = (node as Schema).$ref as string | undefined;
    if (ref) {
      const name = ref.split('/').pop()!;
      if (visited.has(name)) return;
      visited.add(name);
      for (const [field, property] of Object.entries<Schema>(schemas[name]?.properties ?? {})) {
        if (property.type === 'object' && STRING_KEYWORDS.some((keyword) => keyword in property)) {
          found.push(`${name}.${field}`);
        }
      }
      visit(schemas[name]);
      return;
    }
    Object.values(node).forEach(visit);
  };
  for (const item of Object.values<Schema>(document.paths)) {
    for (const operation of Object.values<Schema>(item)) visit(operation.requestBody);
  }
  return found;
}
