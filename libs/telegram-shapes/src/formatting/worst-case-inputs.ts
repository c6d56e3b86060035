import { detectedEntitiesOf } from './detect';
import { MessageEntity } from './entities';
import { parseFormatted, PARSE_MODES, ParseMode } from './index';

/*
 * The texts that cost each parser of a user's text most (long runs of its markup characters,
 * nesting, markup left open, entity-like runs that fail at their end), at any size: what the
 * worst-case tests and the bench's formatting rows run. Not used by the services.
 */

/** `unit` repeated, then cut, to exactly `size` characters (`head` and `tail` at the ends). */
function fill(size: number, unit: string, head = '', tail = ''): string {
  const body = size - head.length - tail.length;
  return head + unit.repeat(Math.ceil(body / unit.length)).slice(0, body) + tail;
}

/** `open` repeated, then `close` as often, to `size` characters with `inner` padding the middle. */
function nest(size: number, open: string, close: string, inner = 'x'): string {
  const depth = Math.floor((size - inner.length) / (open.length + close.length));
  return open.repeat(depth) + inner.padEnd(size - depth * (open.length + close.length), inner) + close.repeat(depth);
}

/** A worst-case text of the given size. */
export type WorstCaseInput = (size: number) => string;

/**
 * One call, answering whether the markup was refused: a refusal is an answer like any other (but
 * costs a stack trace of its own, so a comparison of two sizes must see both refused or neither).
 */
export type WorstCaseRun = (input: string) => boolean;

export interface WorstCaseParser {
  name: string;
  run: WorstCaseRun;
  inputs: Array<[string, WorstCaseInput]>;
}

const DETECTION: Array<[string, WorstCaseInput]> = [
  ['a hashtag that ends in #', (n) => fill(n, 'a', '#', '#')],
  ['a hashtag of another script that ends in an emoji', (n) => fill(n, 'ж', '#', '😀')],
  ['a hashtag of digits', (n) => fill(n, '1', '#')],
  ['a URL that ends in dots', (n) => fill(n, '.', 'http://a', 'a')],
  ['schemes without white space', (n) => fill(n, 'http://')],
  ['opening brackets before schemes', (n) => fill(n, '(https://')],
  ['@ repeated', (n) => fill(n, '@')],
  ['mentions', (n) => fill(n, '@abc ')],
  ['commands', (n) => fill(n, '/a ')],
  ['a command-like run', (n) => fill(n, 'a', '/')],
  ['an e-mail local part without @', (n) => fill(n, 'a.')],
  ['an e-mail domain of many labels and no top level', (n) => fill(n, 'a.', 'x@', '1')],
  ['an e-mail domain of hyphens', (n) => fill(n, '-', 'x@a')],
  ['a@ repeated', (n) => fill(n, 'a@')],
  ['e-mails', (n) => fill(n, 'x@y.zz ')],
  ['every kind, overlapping', (n) => fill(n, '/a@bcd #t@x.yz http://e.f/#g @hij ')],
];

const HTML: Array<[string, WorstCaseInput]> = [
  ['unclosed nested tags', (n) => fill(n, '<b>')],
  ['deeply nested tags', (n) => nest(n, '<b>', '</b>')],
  ['nested pre', (n) => nest(n, '<pre>', '</pre>')],
  ['pre with a language, repeated', (n) => fill(n, '<pre><code class="language-x">x</code></pre><b>x</b>')],
  ['empty pre with a language, repeated', (n) => fill(n, '<pre><code class="language-x"></code></pre>')],
  ['code and bold, repeated', (n) => fill(n, '<code>x</code><b>x</b>')],
  ['nested quotes', (n) => nest(n, '<blockquote>', '</blockquote>')],
  ['ampersands', (n) => fill(n, '&')],
  ['character references', (n) => fill(n, '&#x1F600;&amp;')],
  ['an attribute never closed', (n) => fill(n, 'x', '<a href="')],
  ['a tag of many attributes never closed', (n) => fill(n, 'a ', '<b ')],
  ['links', (n) => fill(n, '<a href="http://a.b/c">d</a>')],
];

const MARKDOWN_V2: Array<[string, WorstCaseInput]> = [
  ['* repeated', (n) => fill(n, '*')],
  ['_ repeated', (n) => fill(n, '_')],
  ['| repeated', (n) => fill(n, '|')],
  ['entities never closed', (n) => fill(n, '*_~')],
  ['[ repeated', (n) => fill(n, '[')],
  ['nested links taking their text as URL', (n) => nest(n, '[a\\.b', ']')],
  ['links', (n) => fill(n, '[a](http://b\\.c)')],
  ['a URL never closed', (n) => fill(n, 'b', '[a](')],
  ['escaped backslashes', (n) => fill(n, '\\')],
  ['code spans', (n) => fill(n, '`a`')],
  ['pre fences', (n) => fill(n, '```a')],
  ['a pre language never ended', (n) => fill(n, 'a', '```')],
  ['quote lines', (n) => fill(n, '>a\n')],
];

const MARKDOWN: Array<[string, WorstCaseInput]> = [
  ['* repeated', (n) => fill(n, '*')],
  ['_ repeated', (n) => fill(n, '_')],
  ['[ repeated', (n) => fill(n, '[')],
  ['links', (n) => fill(n, '[a.b](a.b)')],
  ['link texts never given a URL', (n) => fill(n, '[a](')],
  ['pre fences', (n) => fill(n, '```a')],
  ['code spans', (n) => fill(n, '`a`')],
  ['escapes', (n) => fill(n, '\\*')],
  ['bold never closed', (n) => fill(n, 'a', '*')],
];

/** A hundred code entities over the text, as formatting given with it. */
function codeEvery(text: string): MessageEntity[] {
  const step = Math.floor(text.length / 100);
  return Array.from({ length: 100 }, (_, i) => ({ type: 'code' as const, offset: i * step, length: 2 }));
}

function parser(mode: ParseMode): WorstCaseRun {
  return (input) => {
    try {
      parseFormatted(input, mode);
      return false;
    } catch (error) {
      if (!(error instanceof Error) || error.name !== 'EntityParseError') throw error;
      return true;
    }
  };
}

function detection(input: string): boolean {
  detectedEntitiesOf(input, codeEvery(input));
  return false;
}

const INPUTS: Record<ParseMode, Array<[string, WorstCaseInput]>> = {
  HTML,
  MarkdownV2: MARKDOWN_V2,
  Markdown: MARKDOWN,
};

/** Entity detection (with a hundred code entities given, as a message may have) and the three parse_mode parsers. */
export const WORST_CASE_PARSERS: WorstCaseParser[] = [
  { name: 'entity detection', run: detection, inputs: DETECTION },
  ...PARSE_MODES.map((mode) => ({ name: mode, run: parser(mode), inputs: INPUTS[mode] })),
];
