import { compareEntities, MessageEntity, sortEntities } from './entities';

/*
 * Commands, mentions, hashtags, URLs and e-mail addresses as Telegram's server marks them, found by
 * hand-written scanners rather than regular expressions: each scan reads every character of the text
 * a bounded number of times, so detection is linear in the text whatever it holds (a backtracking
 * pattern took seconds on `#aaa…a#`). The rules are those of the patterns they replace:
 *
 *   bot_command  /[A-Za-z0-9_]{1,32}(@[A-Za-z0-9_]{3,32})?
 *   email        [A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}
 *   mention      @[A-Za-z0-9_]{3,32}
 *   hashtag      #[\p{L}\p{N}_]* with at least one letter
 *   url          (https?|ftp|tg)://[^\s<>"]+ (scheme in any case), less the punctuation that ends it
 *
 * Each starts the text or follows white space or an opening bracket or quote, and each but the URL
 * ends the text or is followed by white space or punctuation. An entity that overlaps one found by
 * an earlier scan (in the order above) is not one.
 */

const SPACE = 1;
const OPENING = 2;
const CLOSING = 4;
/** What ends a URL: white space, `<`, `>`, `"`. */
const URL_END = 8;
/** What a URL does not take at its end: the punctuation of the sentence around it. */
const URL_TRAILING = 16;
/** `[A-Za-z0-9_]` */
const NAME = 32;
/** `[A-Za-z0-9._%+-]` */
const LOCAL_PART = 64;
/** `[A-Za-z0-9.-]` */
const DOMAIN = 128;

/** The classes of every UTF-16 code unit, looked up once per character read. */
const CLASSES = (() => {
  const classes = new Uint8Array(0x10000);
  const mark = (chars: Iterable<string | number>, flag: number) => {
    for (const c of chars) classes[typeof c === 'number' ? c : c.charCodeAt(0)] |= flag;
  };
  const range = (from: string, to: string) =>
    Array.from({ length: to.charCodeAt(0) - from.charCodeAt(0) + 1 }, (_, i) => from.charCodeAt(0) + i);
  const alphanumeric = [...range('A', 'Z'), ...range('a', 'z'), ...range('0', '9')];
  // JavaScript's `\s`.
  const spaces = [0x20, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0xa0, 0x1680, ...range('\u2000', '\u200a')];
  mark([...spaces, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff], SPACE | URL_END);
  mark('([{"\'«', OPENING);
  mark('.,!?;:)]}"\'»', CLOSING | URL_TRAILING);
  mark('<>"', URL_END);
  mark([...alphanumeric, '_'], NAME);
  mark([...alphanumeric, ...'._%+-'], LOCAL_PART);
  mark([...alphanumeric, ...'.-'], DOMAIN);
  return classes;
})();

function is(code: number, flags: number): boolean {
  return (CLASSES[code] & flags) !== 0;
}

/** Whether an entity may start at `at`: the start of the text, or after white space or an opening bracket. */
function startsWord(text: string, at: number): boolean {
  return at === 0 || is(text.charCodeAt(at - 1), SPACE | OPENING);
}

/** Whether an entity may end at `at`: the end of the text, or before white space or punctuation. */
function endsWord(text: string, at: number): boolean {
  return at >= text.length || is(text.charCodeAt(at), SPACE | CLOSING);
}

function isAsciiLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/** The end of the run of name characters from `from`, reading at most `max + 1` of them. */
function nameRunEnd(text: string, from: number, max: number): number {
  let end = from;
  while (end < text.length && end - from <= max && is(text.charCodeAt(end), NAME)) end += 1;
  return end;
}

/** A scanner: the end of the entity starting at `at` and where the scan goes on, or null. */
type Scan = (text: string, at: number) => { end: number; next: number } | null;

/** What an entity of a kind can begin with, checked before anything else is read. */
type First = (code: number) => boolean;

/** `/start`, `/start@some_bot`. */
const scanCommand: Scan = (text, at) => {
  // Stryker disable next-line ConditionalExpression: SCANS's first-character check has let only `/` through.
  if (text.charCodeAt(at) !== 0x2f) return null;
  const nameEnd = nameRunEnd(text, at + 1, 32);
  const name = nameEnd - at - 1;
  if (name < 1 || name > 32) return null;
  if (text.charCodeAt(nameEnd) === 0x40) {
    const botEnd = nameRunEnd(text, nameEnd + 1, 32);
    const bot = botEnd - nameEnd - 1;
    return bot >= 3 && bot <= 32 && endsWord(text, botEnd) ? { end: botEnd, next: botEnd } : null;
  }
  return endsWord(text, nameEnd) ? { end: nameEnd, next: nameEnd } : null;
};

/** `@username`. */
const scanMention: Scan = (text, at) => {
  // Stryker disable next-line ConditionalExpression: SCANS's first-character check has let only `@` through.
  if (text.charCodeAt(at) !== 0x40) return null;
  const end = nameRunEnd(text, at + 1, 32);
  const length = end - at - 1;
  return length >= 3 && length <= 32 && endsWord(text, end) ? { end, next: end } : null;
};

/**
 * `local@host.example`: the longest domain whose labels are not empty, whose last label is two or
 * more letters and which ends the word.
 */
const scanEmail: Scan = (text, at) => {
  let localEnd = at;
  while (localEnd < text.length && is(text.charCodeAt(localEnd), LOCAL_PART)) localEnd += 1;
  // Stryker disable next-line ConditionalExpression: SCANS lets a scan start only on a local-part character, so localEnd > at.
  if (localEnd === at || text.charCodeAt(localEnd) !== 0x40) return null;
  const domainStart = localEnd + 1;
  let domainEnd = domainStart;
  while (domainEnd < text.length && is(text.charCodeAt(domainEnd), DOMAIN)) domainEnd += 1;
  let best = -1;
  let labels = 0;
  let labelStart = domainStart;
  let lettersOnly = true;
  for (let i = domainStart; i <= domainEnd; i++) {
    const code = i < domainEnd ? text.charCodeAt(i) : -1;
    if (code !== 0x2e && code !== -1) {
      if (!isAsciiLetter(code)) lettersOnly = false;
      continue;
    }
    // An empty label ends what can be a domain.
    if (i === labelStart) break;
    labels += 1;
    // Inside the domain a label is followed by a dot, which may end a word.
    const ends = code === 0x2e || endsWord(text, i);
    if (labels >= 2 && lettersOnly && i - labelStart >= 2 && ends) best = i;
    if (code === -1) break;
    labelStart = i + 1;
    lettersOnly = true;
  }
  return best < 0 ? null : { end: best, next: best };
};

const WORD_CHAR = /[\p{L}\p{N}_]/uy;
const LETTER = /\p{L}/uy;

function matchesAt(pattern: RegExp, text: string, at: number): boolean {
  pattern.lastIndex = at;
  return pattern.test(text);
}

/** `#tag`: letters, digits and `_` of any script, at least one letter. */
const scanHashtag: Scan = (text, at) => {
  // Stryker disable next-line ConditionalExpression: SCANS's first-character check has let only `#` through.
  if (text.charCodeAt(at) !== 0x23) return null;
  let end = at + 1;
  let letter = false;
  while (end < text.length) {
    const code = text.charCodeAt(end);
    if (code < 0x80) {
      if (!is(code, NAME)) break;
      letter ||= isAsciiLetter(code);
      end += 1;
      continue;
    }
    if (!matchesAt(WORD_CHAR, text, end)) break;
    letter ||= matchesAt(LETTER, text, end);
    end += (text.codePointAt(end) ?? 0) > 0xffff ? 2 : 1;
  }
  return letter && endsWord(text, end) ? { end, next: end } : null;
};

const SCHEMES = ['https://', 'http://', 'ftp://', 'tg://'];

/** Whether `prefix` (lower-case ASCII) is at `at`, in any case. */
function startsWithFolded(text: string, at: number, prefix: string): boolean {
  if (at + prefix.length > text.length) return false;
  for (let i = 0; i < prefix.length; i++) {
    const code = text.charCodeAt(at + i);
    const folded = isAsciiLetter(code) ? code | 0x20 : code;
    if (folded !== prefix.charCodeAt(i)) return false;
  }
  return true;
}

/** `https://…` up to white space, `<`, `>` or `"`, less the punctuation that ends it; the scan goes on after all of it. */
const scanUrl: Scan = (text, at) => {
  const scheme = SCHEMES.find((candidate) => startsWithFolded(text, at, candidate));
  if (!scheme) return null;
  const bodyStart = at + scheme.length;
  let next = bodyStart;
  while (next < text.length && !is(text.charCodeAt(next), URL_END)) next += 1;
  if (next === bodyStart) return null;
  let end = next;
  while (end > bodyStart && is(text.charCodeAt(end - 1), URL_TRAILING)) end -= 1;
  return { end, next };
};

// The first-character checks only save work: each scanner checks its first character again.
// Stryker disable ConditionalExpression
const SCANS: Array<[MessageEntity['type'], First, Scan]> = [
  ['bot_command', (code) => code === 0x2f, scanCommand],
  ['email', (code) => is(code, LOCAL_PART), scanEmail],
  ['mention', (code) => code === 0x40, scanMention],
  ['hashtag', (code) => code === 0x23, scanHashtag],
  // h, f, t in either case
  ['url', (code) => (code | 0x20) === 0x68 || (code | 0x20) === 0x66 || (code | 0x20) === 0x74, scanUrl],
];
// Stryker restore ConditionalExpression

/** Every entity one scanner finds, in text order; none overlaps another. */
function scanAll(text: string, type: MessageEntity['type'], first: First, scan: Scan): MessageEntity[] {
  const found: MessageEntity[] = [];
  let at = 0;
  while (at < text.length) {
    const match = first(text.charCodeAt(at)) && startsWord(text, at) ? scan(text, at) : null;
    if (match) {
      found.push({ type, offset: at, length: match.end - at });
      at = match.next;
    } else {
      at += 1;
    }
  }
  return found;
}

/**
 * `kept` with the entities of `found` that overlap none of them, in text order. Both lists are in
 * text order and free of overlaps, so one pass over each decides.
 */
function keepApart(kept: MessageEntity[], found: MessageEntity[]): MessageEntity[] {
  const result: MessageEntity[] = [];
  let k = 0;
  for (const entity of found) {
    while (k < kept.length && kept[k].offset + kept[k].length <= entity.offset) result.push(kept[k++]);
    const blocked = k < kept.length && kept[k].offset < entity.offset + entity.length;
    if (!blocked) result.push(entity);
  }
  while (k < kept.length) result.push(kept[k++]);
  return result;
}

/**
 * Commands, mentions, hashtags, URLs and e-mail addresses in a text, as Telegram's server marks them
 * in every message: frameworks route commands by these entities. UTF-16 offsets, in text order; time
 * linear in the text.
 */
export function detectEntities(text: string): MessageEntity[] {
  let kept: MessageEntity[] = [];
  for (const [type, first, scan] of SCANS) kept = keepApart(kept, scanAll(text, type, first, scan));
  return kept;
}

/** Entity types whose text is not scanned: a detected entity never overlaps one of them. */
const OPAQUE = new Set(['code', 'pre', 'text_link', 'mention', 'hashtag', 'bot_command', 'url', 'email']);

/**
 * What detection finds in a message's text outside its code, its links and the entities that were
 * given with it: what a message stores when it is written, so that no read detects anything.
 */
export function detectedEntitiesOf(text: string | null, formatting: readonly MessageEntity[]): MessageEntity[] {
  if (!text) return [];
  const opaque = sortEntities(formatting.filter((entity) => OPAQUE.has(entity.type)));
  const found = detectEntities(text);
  // Stryker disable next-line ConditionalExpression: a shortcut; with nothing opaque the loop below keeps all it found.
  if (opaque.length === 0) return found;
  // Both in text order: one pass, carrying the furthest end of the opaque entities begun so far.
  const outside: MessageEntity[] = [];
  let o = 0;
  let reach = -1;
  for (const entity of found) {
    const end = entity.offset + entity.length;
    while (o < opaque.length && opaque[o].offset < end) {
      reach = Math.max(reach, opaque[o].offset + opaque[o].length);
      o += 1;
    }
    if (reach <= entity.offset) outside.push(entity);
  }
  return outside;
}

/** A message's entities as readers see them: its formatting with what was detected when it was written. */
export function withDetectedEntities(
  formatting: readonly MessageEntity[],
  detected: readonly MessageEntity[] | null,
): MessageEntity[] {
  // Stryker disable next-line ConditionalExpression: a shortcut; the merge below copies the formatting alone too.
  if (!detected || detected.length === 0) return [...formatting];
  // Stryker disable next-line ConditionalExpression: a shortcut; the merge below copies the detected alone too.
  if (formatting.length === 0) return [...detected];
  // Both are in the order of sortEntities already: merged in one pass, as a page of long texts has many.
  const merged: MessageEntity[] = [];
  let f = 0;
  let d = 0;
  while (f < formatting.length && d < detected.length) {
    merged.push(compareEntities(formatting[f], detected[d]) <= 0 ? formatting[f++] : detected[d++]);
  }
  return [...merged, ...formatting.slice(f), ...detected.slice(d)];
}
