import { detectedEntitiesOf } from './detect';
import { MessageEntity } from './entities';
import { parseFormatted, ParseMode } from './index';

/*
 * Every parser of a user's text (the three parse_mode parsers and entity detection) on the inputs
 * that cost it most: long runs of its markup characters, nesting, markup left open, entity-like runs
 * that fail at their end. A parser whose time grows faster than its input lets one message hold a
 * process for seconds, so each input is timed at 4 KB and at 8 KB: the 4 KB text must take less than
 * PER_4_KB_MS (the median sample), and the 8 KB one at most GROWTH times as long (twice, for linear
 * time; four times for quadratic), which fails on a slow box and on a fast one alike. Time is the
 * process's CPU time, which other processes on a busy machine do not lengthen as they do the clock;
 * the growth compares the fastest samples, which what remains of that noise disturbed least, and
 * a measurement is taken up to ATTEMPTS times, keeping the best: noise rarely strikes thrice, while
 * a parser that grows faster than its input is slow every time.
 */
const PER_4_KB_MS = 20;
const GROWTH = 3;
const SIZES = [4096, 8192] as const;
/** Each sample calls the parser for at least this much CPU time, so that jitter averages out. */
const SAMPLE_MS = 10;
const SAMPLES = 7;
const ATTEMPTS = 3;

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

type Input = (size: number) => string;

const DETECTION: Array<[string, Input]> = [
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

const HTML: Array<[string, Input]> = [
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

const MARKDOWN_V2: Array<[string, Input]> = [
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

const MARKDOWN: Array<[string, Input]> = [
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

/**
 * One call, answering whether the markup was refused: a refusal is an answer like any other, but
 * one size must not be refused where the other is not (an error costs a stack trace of its own).
 */
type Run = (input: string) => boolean;

function parser(mode: ParseMode): Run {
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

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

interface Timing {
  median: number;
  fastest: number;
}

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** CPU milliseconds per call: calls repeated for at least SAMPLE_MS of CPU time. */
function sample(run: Run, input: string): number {
  const started = cpuMs();
  let calls = 0;
  let spent = 0;
  do {
    run(input);
    calls += 1;
    spent = cpuMs() - started;
  } while (spent < SAMPLE_MS);
  return spent / calls;
}

/** The time per call at each size, the sizes sampled in turn so that both see the same load. */
function timeBySize(run: Run, input: Input): [Timing, Timing] {
  const inputs = SIZES.map((size) => input(size));
  inputs.forEach((text, i) => expect(text).toHaveLength(SIZES[i]));
  expect(run(inputs[1])).toBe(run(inputs[0]));
  for (let i = 0; i < 3; i++) inputs.forEach((text) => run(text));
  const samples: [number[], number[]] = [[], []];
  for (let i = 0; i < SAMPLES; i++) inputs.forEach((text, s) => samples[s].push(sample(run, text)));
  const timing = (values: number[]) => ({ median: median(values), fastest: Math.min(...values) });
  return [timing(samples[0]), timing(samples[1])];
}

function expectLinear(run: Run, input: Input): void {
  const growth = ([small, large]: [Timing, Timing]) => large.fastest / small.fastest;
  let best = timeBySize(run, input);
  // A 4 KB text over the bound fails as it is: measuring it again would only take longer.
  for (let attempt = 1; attempt < ATTEMPTS && growth(best) > GROWTH && best[0].median < PER_4_KB_MS; attempt++) {
    const again = timeBySize(run, input);
    if (growth(again) < growth(best)) best = again;
  }
  const [small, large] = best;
  const figures =
    `median ${small.median.toFixed(3)} ms at 4 KB, ${large.median.toFixed(3)} ms at 8 KB; ` +
    `fastest ${small.fastest.toFixed(3)} ms, ${large.fastest.toFixed(3)} ms`;
  expect({ figures, within: small.median < PER_4_KB_MS }).toEqual({ figures, within: true });
  expect({ figures, linear: large.fastest <= GROWTH * small.fastest }).toEqual({ figures, linear: true });
}

describe('worst-case inputs: time per kilobyte and linear growth', () => {
  it.each(DETECTION)('entity detection: %s', (_name, input) => expectLinear(detection, input));
  it.each(HTML)('HTML: %s', (_name, input) => expectLinear(parser('HTML'), input));
  it.each(MARKDOWN_V2)('MarkdownV2: %s', (_name, input) => expectLinear(parser('MarkdownV2'), input));
  it.each(MARKDOWN)('Markdown: %s', (_name, input) => expectLinear(parser('Markdown'), input));
});
