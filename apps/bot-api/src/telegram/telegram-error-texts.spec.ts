import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { TELEGRAM_ERROR_TABLE, TELEGRAM_TEXTS } from './telegram-errors';

const APP = resolve(__dirname, '../..');

/**
 * Where the status is not written beside the text, and why. A framework refusal before any method ran
 * (a malformed path parameter, say) keeps the status Nest gave it, with Telegram's `Bad Request:` text.
 */
const STATUS_DECIDED_ELSEWHERE = new Set(['src/telegram/telegram-exception.filter.ts']);

/** How Telegram's descriptions begin for each status the face answers. */
const PREFIX_OF_STATUS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Request Entity Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
};

function typescriptFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return typescriptFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** The text of a call's arguments up to its closing parenthesis, skipping strings. */
function argumentsAt(text: string, start: number): string {
  let depth = 1;
  let quote: string | null = null;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === "'" || c === '"' || c === '`') quote = c;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return text.slice(start, i);
  }
  throw new Error('unbalanced call');
}

/** Splits on top-level commas (outside strings, brackets and `${…}`). */
function topLevel(args: string, separator: RegExp): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let from = 0;
  for (let i = 0; i < args.length; i++) {
    const c = args[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === "'" || c === '"' || c === '`') quote = c;
    else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
    else if (depth === 0 && separator.test(args.slice(i, i + 3))) {
      parts.push(args.slice(from, i).trim());
      from = i + args.slice(i, i + 3).match(separator)![0].length;
      i = from - 1;
    }
  }
  parts.push(args.slice(from).trim());
  return parts.filter((part) => part.length > 0);
}

interface TextSite {
  where: string;
  status: number;
  /** The description, `{…}` standing for a value filled in at run time; undefined when not a written text. */
  text?: string;
  source: string;
  registered: boolean;
}

/** One description expression: a written string, a template, a TELEGRAM_TEXTS entry, or `a ? b : c` of those. */
function textsOf(expression: string): Array<{ text?: string; registered: boolean }> {
  const branches = topLevel(expression, /^ \? | : /);
  if (branches.length === 3) return [...textsOf(branches[1]), ...textsOf(branches[2])];
  const registeredKey = expression.match(/^TELEGRAM_TEXTS\.(\w+)$/)?.[1];
  if (registeredKey) {
    return [{ text: (TELEGRAM_TEXTS as Record<string, string>)[registeredKey], registered: true }];
  }
  const literal = expression.match(/^(['"`])([\s\S]*)\1$/);
  if (!literal) return [{ text: undefined, registered: false }];
  return [{ text: literal[2].replace(/\$\{[^}]*\}/g, '{…}').replace(/\\'/g, "'"), registered: false }];
}

function textSites(file: string, text: string): TextSite[] {
  const sites: TextSite[] = [];
  for (const match of text.matchAll(/new TelegramError\(|TelegramError\.badRequest\(/g)) {
    const where = `${relative(APP, file)}:${text.slice(0, match.index).split('\n').length}`;
    const args = topLevel(argumentsAt(text, match.index! + match[0].length), /^,/);
    const badRequest = match[0].startsWith('TelegramError.');
    const status = badRequest ? 400 : Number(args[0]);
    const expression = badRequest ? args[0] : args[1];
    for (const found of textsOf(expression)) {
      const described = found.text !== undefined && badRequest ? `Bad Request: ${found.text}` : found.text;
      sites.push({ where, status, text: described, source: expression, registered: found.registered });
    }
  }
  return sites;
}

describe('the Telegram face error texts', () => {
  const sources = typescriptFiles(join(APP, 'src'))
    .filter((file) => !file.endsWith('.spec.ts'))
    // TelegramError's own definition (its badRequest helper) builds texts from what callers give it.
    .filter((file) => !file.endsWith('telegram-errors.ts'));
  const sites = sources.flatMap((file) => textSites(file, readFileSync(file, 'utf8')));

  it('finds every TelegramError the face makes', () => {
    expect(sites.length).toBeGreaterThan(50);
    expect(sites).toContainEqual(expect.objectContaining({ status: 404, text: TELEGRAM_TEXTS.methodNotFound }));
    expect(sites).toContainEqual(
      expect.objectContaining({ status: 400, text: 'Bad Request: parameter {…} is required' }),
    );
  });

  it('gives each one a written text or a registered one, never a text computed elsewhere', () => {
    expect(sites.filter((site) => site.text === undefined).map((s) => `${s.where}: ${s.source}`)).toEqual([]);
  });

  it('begins each text as Telegram does for its status, and answers only statuses the face documents', () => {
    const wrong = sites
      .filter((site) => site.text !== undefined)
      .filter((site) => !(Number.isNaN(site.status) && STATUS_DECIDED_ELSEWHERE.has(site.where.split(':')[0])))
      .filter((site) => {
        const prefix = PREFIX_OF_STATUS[site.status];
        return !prefix || !(site.text === prefix || site.text!.startsWith(`${prefix}: `));
      })
      .map((site) => `${site.where}: ${site.status} ${site.text}`);
    expect(wrong).toEqual([]);
  });

  it('writes each text at one place: one used twice, or one the registry holds, is refused', () => {
    const registered = new Set<string>(Object.values(TELEGRAM_TEXTS));
    const written = sites.filter((site) => !site.registered && site.text !== undefined);
    const restated = written.filter((site) => registered.has(site.text!)).map((s) => `${s.where}: ${s.text}`);
    const places = new Map<string, string[]>();
    for (const site of written) places.set(site.text!, [...(places.get(site.text!) ?? []), site.where]);
    const repeated = [...places].filter(([, where]) => where.length > 1).map(([text, where]) => `${text}: ${where}`);
    expect({ restated, repeated }).toEqual({ restated: [], repeated: [] });
  });

  it('keeps the registry free of duplicates and of texts no status of Telegram begins with', () => {
    const texts = Object.values(TELEGRAM_TEXTS) as string[];
    expect(new Set(texts).size).toBe(texts.length);
    const prefixes = Object.values(PREFIX_OF_STATUS);
    expect(texts.filter((text) => !prefixes.some((p) => text === p || text.startsWith(`${p}: `)))).toEqual([]);
  });

  describe('against the descriptions the e2e tests expect', () => {
    const tests = typescriptFiles(join(APP, 'test'));
    const expected = tests.flatMap((file) =>
      [
        ...readFileSync(file, 'utf8').matchAll(
          /description(?::\s*|\)\.toBe\(\s*)(['"`])((?:Bad Request|Unauthorized|Forbidden|Not Found|Request Timeout|Conflict|Request Entity Too Large|Too Many Requests|Internal Server Error|Bad Gateway)[^'"`]*)\1/g,
        ),
      ].map((match) => ({
        where: relative(APP, file),
        text: match[2].replace(/\$\{[^}]*\}/g, '{…}').replace(/\\'/g, "'"),
      })),
    );
    /** A native error's answer: `<prefix>: <its message>` or the rule's fixed text (TELEGRAM_ERROR_TABLE). */
    const nativeForms = Object.values(TELEGRAM_ERROR_TABLE).map((rule) => ({ prefix: rule.prefix, fixed: rule.fixed }));
    const asPattern = (text: string) =>
      new RegExp(`^${text.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{…\}/g, '.+')}$`);

    it('finds them', () => {
      expect(expected.length).toBeGreaterThan(10);
    });

    it('has each one as a text of the face or as a native error in the words of the table', () => {
      const faceTexts = sites.filter((site) => site.text !== undefined).map((site) => asPattern(site.text!));
      const unknown = expected.filter(
        ({ text }) =>
          !faceTexts.some((pattern) => pattern.test(text) || pattern.test(text.replace(/\{…\}/g, '1'))) &&
          !nativeForms.some((form) => (form.fixed ? text === form.fixed : text.startsWith(`${form.prefix}: `))),
      );
      expect(unknown.map((e) => `${e.where}: ${e.text}`)).toEqual([]);
    });
  });
});
