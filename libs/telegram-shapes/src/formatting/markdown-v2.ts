import { byteOffset, EntityParseError, EntityType, FormattedText, MessageEntity, normalizeUrl } from './entities';

/** Characters that are markup wherever they are not escaped (Telegram's MarkdownV2 rules). */
const RESERVED = new Set('_*[]()~`>#+-=|{}.!');

/** Entity names as Telegram's errors spell them. */
const ERROR_NAMES: Partial<Record<EntityType, string>> = {
  bold: 'Bold',
  italic: 'Italic',
  underline: 'Underline',
  strikethrough: 'Strikethrough',
  spoiler: 'Spoiler',
  code: 'Code',
  pre: 'Pre',
  text_link: 'TextUrl',
};

interface Open {
  type: EntityType;
  /** Where it starts in the output, in UTF-16 units. */
  offset: number;
  /** Where its markup starts in the input, for the error. */
  index: number;
  language?: string;
  /** A link: where its text starts among the output's pieces, and whether it holds another link. */
  piece?: number;
  holdsLink?: boolean;
}

/**
 * The parsed text as it grows, as pieces: a link's text is read back by joining its own pieces, not
 * by copying all the text written so far, so that a text of many links costs no more than its length.
 */
class Output {
  private readonly pieces: string[] = [];
  length = 0;

  add(piece: string): void {
    this.pieces.push(piece);
    this.length += piece.length;
  }

  /** Where the next piece goes, for `since`. */
  mark(): number {
    return this.pieces.length;
  }

  since(mark: number): string {
    return this.pieces.slice(mark).join('');
  }

  endsWithLineBreak(): boolean {
    return this.pieces.at(-1) === '\n';
  }

  toString(): string {
    return this.pieces.join('');
  }
}

/** The single-character markup that opens or closes an inline entity, and how many characters it takes. */
function inlineToken(input: string, i: number): { type: EntityType; size: number } | null {
  const c = input[i];
  const next = input[i + 1];
  if (c === '*') return { type: 'bold', size: 1 };
  if (c === '_') return next === '_' ? { type: 'underline', size: 2 } : { type: 'italic', size: 1 };
  if (c === '~') return { type: 'strikethrough', size: 1 };
  if (c === '|' && next === '|') return { type: 'spoiler', size: 2 };
  return null;
}

/** An escape is `\` before any character with a code from 1 to 126. */
function isEscape(input: string, i: number): boolean {
  const code = input.charCodeAt(i + 1);
  return input[i] === '\\' && code >= 1 && code <= 126;
}

/**
 * Telegram's MarkdownV2: `*bold*`, `_italic_`, `__underline__`, `~strike~`, `||spoiler||`,
 * `[text](url)`, `` `code` ``, ```` ```lang\npre``` ````, `>` quotes (a quote whose last line ends in
 * `||` is expandable). Every reserved character outside code must be escaped with `\`. A link
 * without `(url)` takes its text as the URL when that text holds no other link (Telegram reads it
 * again for every link around it, which costs the square of the nesting).
 */
export function parseMarkdownV2(input: string): FormattedText {
  const out = new Output();
  const entities: MessageEntity[] = [];
  const stack: Open[] = [];
  const links: Open[] = [];
  let quote: { offset: number; expandable: boolean } | null = null;
  const reserved = (c: string) =>
    new EntityParseError(`Character '${c}' is reserved and must be escaped with the preceding '\\'`);
  const close = (open: Open, extra: Partial<MessageEntity> = {}) => {
    entities.push({ type: open.type, offset: open.offset, length: out.length - open.offset, ...extra });
  };
  const endQuote = () => {
    if (!quote) return;
    const end = out.endsWithLineBreak() ? out.length - 1 : out.length;
    entities.push({
      type: quote.expandable ? 'expandable_blockquote' : 'blockquote',
      offset: quote.offset,
      length: end - quote.offset,
    });
    quote = null;
  };

  let i = 0;
  while (i < input.length) {
    const top = stack.at(-1);
    const verbatim = top?.type === 'code' || top?.type === 'pre';
    if (!verbatim && (i === 0 || input[i - 1] === '\n')) {
      const marker = input[i] === '>' ? 1 : input.startsWith('**>', i) ? 3 : 0;
      if (marker > 0) {
        quote ??= { offset: out.length, expandable: false };
        i += marker;
        continue;
      }
      endQuote();
    }
    if (isEscape(input, i)) {
      out.add(input[i + 1]);
      i += 2;
      continue;
    }
    const c = input[i];
    if (verbatim) {
      const fence = top.type === 'pre' ? input.startsWith('```', i) : c === '`';
      if (fence) {
        stack.pop();
        close(top, top.language ? { language: top.language } : {});
        i += top.type === 'pre' ? 3 : 1;
      } else {
        out.add(c);
        i += 1;
      }
      continue;
    }
    if (c === '`') {
      if (input.startsWith('```', i)) {
        i = openPre(input, i + 3, out.length, stack);
      } else {
        stack.push({ type: 'code', offset: out.length, index: i });
        i += 1;
      }
      continue;
    }
    if (c === '|' && input[i + 1] === '|' && quote && top?.type !== 'spoiler' && atLineEnd(input, i + 2)) {
      quote.expandable = true;
      i += 2;
      continue;
    }
    const token = inlineToken(input, i);
    if (token) {
      if (top?.type === token.type) {
        stack.pop();
        close(top);
      } else {
        stack.push({ type: token.type, offset: out.length, index: i });
      }
      i += token.size;
      continue;
    }
    if (c === '[') {
      const link: Open = { type: 'text_link', offset: out.length, index: i, piece: out.mark() };
      const around = links.at(-1);
      if (around) around.holdsLink = true;
      stack.push(link);
      links.push(link);
      i += 1;
      continue;
    }
    if (c === ']' && top?.type === 'text_link') {
      stack.pop();
      links.pop();
      const link = readUrl(input, i + 1);
      const written = link ? link.url : top.holdsLink ? null : out.since(top.piece!);
      const url = written === null ? null : normalizeUrl(written);
      if (url) close(top, { url });
      i = link ? link.next : i + 1;
      continue;
    }
    if (RESERVED.has(c)) throw reserved(c);
    out.add(c);
    i += 1;
  }
  const unclosed = stack.at(-1);
  if (unclosed) {
    throw new EntityParseError(
      `Can't find end of ${ERROR_NAMES[unclosed.type]} entity at byte offset ${byteOffset(input, unclosed.index)}`,
    );
  }
  endQuote();
  return { text: out.toString(), entities };
}

function atLineEnd(input: string, i: number): boolean {
  return i >= input.length || input[i] === '\n';
}

/**
 * After ```` ``` ````: a language runs to the first white space when something follows it on the
 * line, and one line break after the fence is not part of the text.
 */
function openPre(input: string, from: number, offset: number, stack: Open[]): number {
  let i = from;
  let end = i;
  while (end < input.length && !/\s/.test(input[end]) && input[end] !== '`') end += 1;
  const language = end > i && end < input.length && input[end] !== '`' ? input.slice(i, end) : undefined;
  if (language) i = end;
  if (input[i] === '\r' && input[i + 1] === '\n') i += 2;
  else if (input[i] === '\n' || input[i] === '\r') i += 1;
  stack.push({ type: 'pre', offset, index: from - 3, ...(language ? { language } : {}) });
  return i;
}

/** `(url)` after a link's text; inside it only `)` and `\` need escaping. Null when no `(` follows. */
function readUrl(input: string, from: number): { url: string; next: number } | null {
  if (input[from] !== '(') return null;
  let url = '';
  let i = from + 1;
  while (i < input.length && input[i] !== ')') {
    if (isEscape(input, i)) {
      url += input[i + 1];
      i += 2;
    } else {
      url += input[i];
      i += 1;
    }
  }
  if (i >= input.length) {
    throw new EntityParseError(`Can't find end of a URL at byte offset ${byteOffset(input, from + 1)}`);
  }
  return { url, next: i + 1 };
}
