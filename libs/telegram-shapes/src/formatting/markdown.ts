import { byteOffset, EntityParseError, FormattedText, MessageEntity, normalizeUrl } from './entities';

const MARKUP = new Set(['_', '*', '`', '[']);

/**
 * Telegram's legacy Markdown: `*bold*`, `_italic_`, `` `code` ``, ```` ```pre``` ````, `[text](url)`.
 * Entities do not nest and their text is taken as written; outside them `\` escapes `_ * ` [`.
 */
export function parseMarkdown(input: string): FormattedText {
  let out = '';
  const entities: MessageEntity[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i];
    if (c === '\\' && MARKUP.has(input[i + 1])) {
      out += input[i + 1];
      i += 2;
      continue;
    }
    if (!MARKUP.has(c)) {
      out += c;
      i += 1;
      continue;
    }
    const unclosed = () =>
      new EntityParseError(`Can't find end of the entity starting at byte offset ${byteOffset(input, i)}`);
    if (input.startsWith('```', i)) {
      const end = input.indexOf('```', i + 3);
      // Stryker disable next-line EqualityOperator: indexOf from a position past 0 never finds 0.
      if (end < 0) throw unclosed();
      const { language, text } = preBody(input.slice(i + 3, end));
      entities.push({ type: 'pre', offset: out.length, length: text.length, ...(language ? { language } : {}) });
      out += text;
      i = end + 3;
      continue;
    }
    if (c === '[') {
      const close = input.indexOf(']', i + 1);
      // Stryker disable next-line EqualityOperator: indexOf from a position past 0 never finds 0.
      if (close < 0) throw unclosed();
      const text = input.slice(i + 1, close);
      let next = close + 1;
      let url: string | null = null;
      if (input[next] === '(') {
        // Stryker disable next-line ArithmeticOperator: the two characters before next + 1 are `](`, neither a `)`.
        const end = input.indexOf(')', next + 1);
        // Stryker disable next-line EqualityOperator: indexOf from a position past 0 never finds 0.
        if (end < 0) throw unclosed();
        url = normalizeUrl(input.slice(next + 1, end));
        next = end + 1;
      }
      if (url && !url.startsWith('tg://user'))
        entities.push({ type: 'text_link', offset: out.length, length: text.length, url });
      out += text;
      i = next;
      continue;
    }
    const end = input.indexOf(c, i + 1);
    // Stryker disable next-line EqualityOperator: indexOf from a position past 0 never finds 0.
    if (end < 0) throw unclosed();
    const text = input.slice(i + 1, end);
    entities.push({
      type: c === '*' ? 'bold' : c === '_' ? 'italic' : 'code',
      offset: out.length,
      length: text.length,
    });
    out += text;
    i = end + 1;
  }
  return { text: out, entities };
}

/** A first line without white space followed by a line break names the language. */
function preBody(body: string): { language?: string; text: string } {
  const match = /^([^\s`]+)\r?\n/.exec(body);
  if (match) return { language: match[1], text: body.slice(match[0].length) };
  return { text: body.replace(/^\r?\n/, '') };
}
