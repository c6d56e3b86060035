import { byteOffset, EntityParseError, EntityType, FormattedText, MessageEntity, normalizeUrl } from './entities';

/** Telegram's tags and the entity each makes; `span` and `a` depend on their attributes. */
const TAGS: Record<string, EntityType | null> = {
  b: 'bold',
  strong: 'bold',
  i: 'italic',
  em: 'italic',
  u: 'underline',
  ins: 'underline',
  s: 'strikethrough',
  strike: 'strikethrough',
  del: 'strikethrough',
  'tg-spoiler': 'spoiler',
  span: 'spoiler',
  // Stryker disable next-line StringLiteral: openTag makes a code's entity itself; this entry admits the tag.
  code: 'code',
  pre: 'pre',
  // Stryker disable next-line StringLiteral: openTag makes a link's entity itself; this entry admits the tag.
  a: 'text_link',
  blockquote: 'blockquote',
  // Custom emoji need a sticker set this service does not have: the tag is accepted, its text stays plain.
  'tg-emoji': null,
};

/** The named character references Telegram supports; every numeric one is supported too. */
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };

interface Open {
  tag: string;
  type: EntityType | null;
  offset: number;
  url?: string;
  language?: string;
}

interface StartTag {
  name: string;
  attributes: Map<string, string>;
  next: number;
}

/** `&lt;`, `&#128512;`, `&#x1F600;` …; an unsupported reference stays as it is written. */
function readReference(input: string, i: number): { text: string; next: number } | null {
  const match = /^&(?:#(\d{1,8})|#[xX]([0-9a-fA-F]{1,8})|([a-zA-Z]+));/.exec(input.slice(i, i + 12));
  if (!match) return null;
  if (match[3] !== undefined) {
    const named = NAMED[match[3].toLowerCase()];
    return named === undefined ? null : { text: named, next: i + match[0].length };
  }
  const code = match[1] !== undefined ? Number(match[1]) : parseInt(match[2], 16);
  if (code <= 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return null;
  return { text: String.fromCodePoint(code), next: i + match[0].length };
}

function decodeReferences(value: string): string {
  let out = '';
  for (let i = 0; i < value.length;) {
    const reference = value[i] === '&' ? readReference(value, i) : null;
    out += reference ? reference.text : value[i];
    i = reference ? reference.next : i + 1;
  }
  return out;
}

const NAME_CHAR = /[a-zA-Z0-9-]/;

function readStartTag(input: string, at: number): StartTag {
  const unclosed = () => new EntityParseError(`Unclosed start tag at byte offset ${byteOffset(input, at)}`);
  let i = at + 1;
  while (i < input.length && NAME_CHAR.test(input[i])) i += 1;
  const name = input.slice(at + 1, i).toLowerCase();
  if (i >= input.length) throw unclosed();
  if (!(name in TAGS))
    throw new EntityParseError(`Unsupported start tag "${name}" at byte offset ${byteOffset(input, at)}`);
  const attributes = new Map<string, string>();
  for (;;) {
    while (i < input.length && /\s/.test(input[i])) i += 1;
    if (i >= input.length) throw unclosed();
    if (input[i] === '>') return { name, attributes, next: i + 1 };
    if (input[i] === '/' && input[i + 1] === '>') return { name, attributes, next: i + 2 };
    const nameStart = i;
    while (i < input.length && /[a-zA-Z0-9_-]/.test(input[i])) i += 1;
    const attribute = input.slice(nameStart, i).toLowerCase();
    if (attribute === '') {
      throw new EntityParseError(`Empty attribute name in the tag "${name}" at byte offset ${byteOffset(input, at)}`);
    }
    while (i < input.length && /\s/.test(input[i])) i += 1;
    if (input[i] !== '=') {
      attributes.set(attribute, '');
      continue;
    }
    i += 1;
    while (i < input.length && /\s/.test(input[i])) i += 1;
    if (i >= input.length) throw unclosed();
    let value: string;
    if (input[i] === '"' || input[i] === "'") {
      const end = input.indexOf(input[i], i + 1);
      if (end < 0) throw unclosed();
      value = input.slice(i + 1, end);
      i = end + 1;
    } else {
      const start = i;
      while (i < input.length && !/[\s>]/.test(input[i])) i += 1;
      value = input.slice(start, i);
    }
    attributes.set(attribute, decodeReferences(value));
  }
}

/** What a start tag opens, with its attributes read as Telegram reads them. */
function openTag(tag: StartTag, offset: number, input: string, at: number): Open {
  const { name, attributes } = tag;
  if (name === 'span' && attributes.get('class') !== 'tg-spoiler') {
    throw new EntityParseError(`Tag "span" must have class "tg-spoiler" at byte offset ${byteOffset(input, at)}`);
  }
  if (name === 'a') {
    const url = normalizeUrl(attributes.get('href') ?? '');
    // tg://user links name a Telegram user, which has no counterpart here: the text stays plain.
    return {
      tag: name,
      type: url && !url.startsWith('tg://user') ? 'text_link' : null,
      offset,
      ...(url ? { url } : {}),
    };
  }
  if (name === 'code') {
    const language = /^language-(.+)$/.exec(attributes.get('class') ?? '')?.[1];
    return { tag: name, type: 'code', offset, ...(language ? { language } : {}) };
  }
  if (name === 'blockquote' && attributes.has('expandable'))
    return { tag: name, type: 'expandable_blockquote', offset };
  return { tag: name, type: TAGS[name], offset };
}

/**
 * Telegram's HTML: the tags of its documentation, `&lt;` `&gt;` `&amp;` `&quot;` and numeric
 * references; `<pre><code class="language-x">` gives a pre its language. Refusals use Telegram's texts.
 */
export function parseHtml(input: string): FormattedText {
  let out = '';
  const entities: Array<Written | null> = [];
  const codes = new CodesBySpan();
  const stack: Open[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i];
    if (c === '&') {
      const reference = readReference(input, i);
      out += reference ? reference.text : c;
      i = reference ? reference.next : i + 1;
      continue;
    }
    if (c !== '<') {
      out += c;
      i += 1;
      continue;
    }
    if (input[i + 1] !== '/') {
      const tag = readStartTag(input, i);
      stack.push(openTag(tag, out.length, input, i));
      i = tag.next;
      continue;
    }
    const at = i;
    i += 2;
    const nameStart = i;
    while (i < input.length && NAME_CHAR.test(input[i])) i += 1;
    const name = input.slice(nameStart, i).toLowerCase();
    while (i < input.length && /\s/.test(input[i])) i += 1;
    if (input[i] !== '>') throw new EntityParseError(`Unclosed end tag at byte offset ${byteOffset(input, at)}`);
    i += 1;
    const open = stack.pop();
    if (!open) throw new EntityParseError(`Unexpected end tag at byte offset ${byteOffset(input, at)}`);
    if (open.tag !== name) {
      throw new EntityParseError(
        `Unmatched end tag at byte offset ${byteOffset(input, at)}, expected "</${open.tag}>", found "</${name}>"`,
      );
    }
    if (open.type === null) continue;
    const entity = { type: open.type, offset: open.offset, length: out.length - open.offset };
    if (open.type === 'text_link') entities.push({ ...entity, url: open.url! });
    else if (open.type === 'code') {
      codes.add(entity, entities.length);
      entities.push({ ...entity, ...(open.language ? { codeLanguage: open.language } : {}) });
    } else if (open.type === 'pre') {
      entities.push(takeCodeLanguage(entity, entities, codes));
    } else entities.push(entity);
  }
  const unclosed = stack.at(-1);
  if (unclosed) throw new EntityParseError(`Can't find end tag corresponding to start tag "${unclosed.tag}"`);
  const written = entities.filter((entity): entity is Written => entity !== null);
  return { text: out, entities: written.map(({ codeLanguage: _language, ...entity }) => entity) };
}

type Written = MessageEntity & { codeLanguage?: string };

/** Where the code entities are among those written, by span, first written first. */
class CodesBySpan {
  private readonly bySpan = new Map<string, number[]>();

  add(code: MessageEntity, index: number): void {
    const key = `${code.offset}:${code.length}`;
    const indexes = this.bySpan.get(key);
    if (indexes) indexes.push(index);
    else this.bySpan.set(key, [index]);
  }

  /** The first code written with this span that is still an entity, which stops being one. */
  take(span: MessageEntity): number | undefined {
    return this.bySpan.get(`${span.offset}:${span.length}`)?.shift();
  }
}

/**
 * `<pre><code class="language-x">…</code></pre>`: the code spanning the whole pre gives the pre its
 * language and is not an entity of its own. Found by its span, so a text of many pres costs no more
 * than its length.
 */
function takeCodeLanguage(pre: MessageEntity, entities: Array<Written | null>, codes: CodesBySpan): MessageEntity {
  const index = codes.take(pre);
  if (index === undefined) return pre;
  const code = entities[index]!;
  entities[index] = null;
  return code.codeLanguage ? { ...pre, language: code.codeLanguage } : pre;
}
