import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { signWebhook, SIGNATURE_TOLERANCE_SECONDS } from '@app/bot-delivery';
import { codeBlocks, section } from './markdown';

const GUIDE = readFileSync(resolve(__dirname, '..', 'docs', 'webhooks.md'), 'utf8');

interface TestVector {
  secret: string;
  timestamp: string;
  v1: string;
  v2: string;
  body: Buffer;
  statedLength: number;
}

/** The test vector exactly as a reader sees it: the table's values and the body block's bytes. */
function documentedVector(): TestVector {
  const text = section(GUIDE, 'Test vector');
  const row = (name: string) => {
    const match = new RegExp(`^\\| ${name} \\| \`([^\`]+)\` \\|$`, 'm').exec(text);
    if (!match) throw new Error(`no "${name}" row in the test vector`);
    return match[1];
  };
  const [block] = codeBlocks(text);
  return {
    secret: row('secret_token'),
    timestamp: row('X-Service-Timestamp'),
    v1: row('X-Service-Signature'),
    v2: row('X-Service-Signature-V2'),
    body: Buffer.from(block.code, 'utf8'),
    statedLength: Number(/these (\d+) bytes exactly/.exec(text)?.[1]),
  };
}

function snippet(heading: string, lang: string): string {
  const block = codeBlocks(section(GUIDE, heading)).find((candidate) => candidate.lang === lang);
  if (!block) throw new Error(`no ${lang} block under "${heading}"`);
  return block.code;
}

/** The cases every snippet must get right: the vector itself, a changed byte, a stale or a future timestamp. */
function cases(vector: TestVector) {
  const now = Number(vector.timestamp) + 10;
  const changed = Buffer.from(vector.body);
  changed[changed.length - 3] ^= 1;
  const headers = {
    'x-service-signature': vector.v1,
    'x-service-signature-v2': vector.v2,
    'x-service-timestamp': vector.timestamp,
  };
  return [
    { name: 'valid', body: vector.body, headers, now, expected: true },
    { name: 'changed body', body: changed, headers, now, expected: false },
    { name: 'stale', body: vector.body, headers, now: now + SIGNATURE_TOLERANCE_SECONDS, expected: false },
    { name: 'future', body: vector.body, headers, now: Number(vector.timestamp) - 301, expected: false },
    { name: 'no V2', body: vector.body, headers: { ...headers, 'x-service-signature-v2': '' }, now, expected: false },
  ].map((c) => ({ ...c, body: c.body.toString('base64') }));
}

describe('docs/webhooks.md', () => {
  const vector = documentedVector();

  it("states the signatures the service's own signing code makes for the test vector", () => {
    expect(vector.body.length).toBe(vector.statedLength);
    expect(signWebhook(vector.secret, vector.body, Number(vector.timestamp))).toEqual({
      v1: vector.v1,
      v2: vector.v2,
      timestamp: vector.timestamp,
    });
  });

  it('shows a Node.js verifier that accepts the test vector and rejects a changed body or a timestamp outside ±300 s', () => {
    const program = `${snippet('Node.js (node:crypto)', 'js')}
const cases = ${JSON.stringify(cases(vector))};
console.log(JSON.stringify(cases.map((c) =>
  verifyWebhook(${JSON.stringify(vector.secret)}, Buffer.from(c.body, 'base64'), c.headers, c.now))));`;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', program], { encoding: 'utf8' });
    expect(JSON.parse(output)).toEqual(cases(vector).map((c) => c.expected));
  });

  const python = spawnSync('python3', ['--version']).status === 0;
  (python ? it : it.skip)('shows a Python verifier that decides the same cases the same way (needs python3)', () => {
    const program = `${snippet('Python', 'python')}

import base64, json, sys
cases = json.loads(sys.argv[1])


class Headers(dict):
    def get(self, name, default=None):
        return super().get(name.lower(), default)


print(json.dumps([verify_webhook(${JSON.stringify(vector.secret)}, base64.b64decode(c["body"]),
                                 Headers(c["headers"]), c["now"]) for c in cases]))
`;
    const output = execFileSync('python3', ['-c', program, JSON.stringify(cases(vector))], { encoding: 'utf8' });
    expect(JSON.parse(output)).toEqual(cases(vector).map((c) => c.expected));
  });
});
