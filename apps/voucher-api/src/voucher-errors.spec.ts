import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { VoucherErrors } from './voucher-errors';

/**
 * Every refusal of voucher-api names a code of its registry: no throw site builds an error with a
 * status of its own, and every code the e2e suites expect exists there with the status they expect.
 */
const SRC = __dirname;
const TEST = join(__dirname, '..', 'test');

function typescriptFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return typescriptFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const productionFiles = typescriptFiles(SRC).filter((file) => !file.endsWith('.spec.ts'));

/** Each line of production code matching `pattern`, as `file:line: text`. */
function linesMatching(pattern: RegExp, except: string[] = []): string[] {
  return productionFiles
    .filter((file) => !except.includes(relative(SRC, file)))
    .flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((text, index) => ({ text, where: `${relative(SRC, file)}:${index + 1}` }))
        .filter(({ text }) => pattern.test(text))
        .map(({ text, where }) => `${where}: ${text.trim()}`),
    );
}

interface ExpectedError {
  status: number;
  code: string;
  where: string;
}

/** `expectError(res, 409, 'CODE')` and `{ … code: 409, error: { code: 'CODE' } }` in the e2e suites. */
function expectedErrors(): ExpectedError[] {
  const patterns = [
    /expectError\([\s\S]*?,\s*(\d{3}),\s*'([A-Z][A-Z0-9_]*)',?\s*\)/g,
    /code: (\d{3}), error: \{ code: '([A-Z][A-Z0-9_]*)' \}/g,
  ];
  return typescriptFiles(TEST).flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    return patterns.flatMap((pattern) =>
      [...text.matchAll(pattern)].map((match) => ({
        status: Number(match[1]),
        code: match[2],
        where: `${relative(TEST, file)}:${text.slice(0, match.index).split('\n').length}`,
      })),
    );
  });
}

describe('voucher-api error registry', () => {
  it('finds the production sources it scans', () => {
    expect(productionFiles.length).toBeGreaterThan(50);
  });

  it('builds no error outside the registry: no ApiError construction, coded error or Nest HTTP exception', () => {
    expect(
      linesMatching(/new ApiError\(|ApiError\.\w+\(|codedError\(|new \w*Exception\(/, ['voucher-errors.ts']),
    ).toEqual([]);
  });

  it('documents error responses through the registry (ApiErrors), never with a status chosen by hand', () => {
    expect(linesMatching(/ApiErrorResponses\(|@ApiResponse\(\{\s*status:\s*[45]\d\d/)).toEqual([]);
  });

  it('throws only codes that are in the registry', () => {
    const thrown = productionFiles.flatMap((file) =>
      [
        ...readFileSync(file, 'utf8').matchAll(/VoucherErrors\.(?:error|notFound)\(\s*(?:[^,()]+,\s*)?'([A-Z_]+)'/g),
      ].map((match) => match[1]),
    );
    expect(thrown.length).toBeGreaterThan(20);
    expect(thrown.filter((code) => !VoucherErrors.has(code))).toEqual([]);
  });

  it('holds every code the e2e suites expect, with the status they expect', () => {
    const expected = expectedErrors();
    expect(expected.length).toBeGreaterThan(100);
    const drift = expected
      .filter(({ code, status }) => !VoucherErrors.has(code) || VoucherErrors.statusOf(code) !== status)
      .map(({ code, status, where }) => `${where}: ${status} ${code}`);
    expect(drift).toEqual([]);
  });
});
