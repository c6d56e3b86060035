import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { BotErrors } from './bot-errors';

const APPS = resolve(__dirname, '../..');

function typescriptFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return typescriptFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Errors made without the registry: their code and status would be chosen at the throw site. */
const UNREGISTERED_ERRORS = [
  /\bnew ApiError\s*\(/,
  /\bApiError\.\w+\s*\(/,
  /\bcodedError\s*\(/,
  /\bnew \w*(?:Http)?Exception\s*\(/,
];

interface ExpectedCode {
  code: string;
  /** The status the same assertion (or the one just before it) expects, when there is one. */
  status?: number;
  where: string;
}

/**
 * The codes the e2e tests expect in error bodies (`code: 'X'`, `.code).toBe('X')`), each with the
 * status asserted in the same statement or the one before (`.expect(404)`, `.status).toBe(409)`, or a
 * helper's status argument).
 */
function expectedCodes(file: string, text: string): ExpectedCode[] {
  const found: ExpectedCode[] = [];
  for (const match of text.matchAll(/(?:\bcode:\s*|\.code\)\.toBe\(\s*)'([A-Z][A-Z0-9_]*)'/g)) {
    const before = text.slice(0, match.index);
    const statementStart = before.lastIndexOf(';', before.lastIndexOf(';') - 1) + 1;
    const statuses = [...before.slice(statementStart).matchAll(/(?:\.expect\(|status\)\.toBe\(|,\s*)([45]\d\d)\s*\)/g)];
    const line = before.split('\n').length;
    const status = statuses.length > 0 ? Number(statuses[statuses.length - 1][1]) : undefined;
    found.push({ code: match[1], status, where: `${file}:${line}` });
  }
  return found;
}

describe('bot error registry', () => {
  const sources = [join(APPS, 'bot-api/src'), join(APPS, 'bot-dispatcher/src')]
    .flatMap(typescriptFiles)
    .filter((file) => !file.endsWith('.spec.ts'));

  it('is the only way bot-api and bot-dispatcher make an error response', () => {
    expect(sources.length).toBeGreaterThan(50);
    const offenders = sources.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, index) => ({ line, where: `${relative(APPS, file)}:${index + 1}` }))
        .filter(({ line }) => UNREGISTERED_ERRORS.some((pattern) => pattern.test(line)))
        .map(({ where, line }) => `${where}: ${line.trim()}`),
    );
    expect(offenders).toEqual([]);
  });

  describe('against the codes the e2e tests expect', () => {
    const tests = [join(APPS, 'bot-api/test'), join(APPS, 'bot-dispatcher/test')].flatMap(typescriptFiles);
    const expected = tests.flatMap((file) => expectedCodes(relative(APPS, file), readFileSync(file, 'utf8')));

    it('finds them, most with the status they are expected with', () => {
      expect(expected.length).toBeGreaterThan(40);
      expect(expected.filter((entry) => entry.status !== undefined).length).toBeGreaterThan(30);
      expect(expected).toContainEqual(expect.objectContaining({ code: 'TOKEN_ALREADY_READ', status: 410 }));
    });

    it('has every one of them, under the status the tests expect', () => {
      const unknown = expected.filter((entry) => !BotErrors.has(entry.code)).map((e) => `${e.where} ${e.code}`);
      const misplaced = expected
        .filter((entry) => BotErrors.has(entry.code) && entry.status !== undefined)
        .filter((entry) => BotErrors.statusOf(entry.code as never) !== entry.status)
        .map((e) => `${e.where} ${e.code}: expected ${e.status}, registered ${BotErrors.statusOf(e.code as never)}`);
      expect({ unknown, misplaced }).toEqual({ unknown: [], misplaced: [] });
    });
  });

  it('finds the status of an expected code in the same or the previous statement only', () => {
    const text = [
      `const a = await call().expect(403);`,
      `expect(a.body.code).toBe('FORBIDDEN');`,
      `expect((await call().expect(409)).body.code).toBe('CONFLICT');`,
      `const b = await call();`,
      `const c = await call();`,
      `expect(c.body).toEqual({ success: false, code: 'NOT_FOUND', message: 'x' });`,
    ].join('\n');
    expect(expectedCodes('t.ts', text)).toEqual([
      { code: 'FORBIDDEN', status: 403, where: 't.ts:2' },
      { code: 'CONFLICT', status: 409, where: 't.ts:3' },
      { code: 'NOT_FOUND', status: undefined, where: 't.ts:6' },
    ]);
  });
});
