import { EntityParseError } from './entities';
import { parseMarkdownV2 } from './markdown-v2';

const reserved = (c: string) =>
  new EntityParseError(`Character '${c}' is reserved and must be escaped with the preceding '\\'`);

describe('parseMarkdownV2', () => {
  it('refuses every reserved character left unescaped, and takes each escaped', () => {
    for (const c of '_*[]()~`>#+-=|{}.!') {
      if (!'_*[~`|'.includes(c) && c !== '>') expect(() => parseMarkdownV2(`a${c}b`)).toThrow(reserved(c));
      expect(parseMarkdownV2(`a\\${c}b`)).toEqual({ text: `a${c}b`, entities: [] });
    }
    expect(parseMarkdownV2('a\\bc\\\\')).toEqual({ text: 'abc\\', entities: [] });
  });

  it('escapes a character of code 1 to 126 only', () => {
    expect(parseMarkdownV2('\\\u0001\\~')).toEqual({ text: '\u0001~', entities: [] });
    // A backslash before DEL, a letter beyond ASCII or the end of the text is itself.
    expect(parseMarkdownV2('\\\u007f')).toEqual({ text: '\\\u007f', entities: [] });
    expect(parseMarkdownV2('\\é')).toEqual({ text: '\\é', entities: [] });
    expect(parseMarkdownV2('a\\')).toEqual({ text: 'a\\', entities: [] });
    expect(parseMarkdownV2('\\\u0000')).toEqual({ text: '\\\u0000', entities: [] });
  });

  it('names each unclosed entity as Telegram does', () => {
    for (const [input, name] of [
      ['__u', 'Underline'],
      ['~s', 'Strikethrough'],
      ['||p', 'Spoiler'],
      ['```pre', 'Pre'],
      ['[link', 'TextUrl'],
    ]) {
      expect(() => parseMarkdownV2(`é${input}`)).toThrow(
        new EntityParseError(`Can't find end of ${name} entity at byte offset 2`),
      );
    }
  });

  it('reads quotes line by line, ending them at a line without ">", the line break left out', () => {
    expect(parseMarkdownV2('>one\n>two\nafter')).toEqual({
      text: 'one\ntwo\nafter',
      entities: [{ type: 'blockquote', offset: 0, length: 7 }],
    });
    expect(parseMarkdownV2('a\n>q')).toEqual({
      text: 'a\nq',
      entities: [{ type: 'blockquote', offset: 2, length: 1 }],
    });
    expect(parseMarkdownV2('>q\n')).toEqual({ text: 'q\n', entities: [{ type: 'blockquote', offset: 0, length: 1 }] });
  });

  it('makes a quote expandable when it starts with "**>" or its last line ends in "||"', () => {
    expect(parseMarkdownV2('**>one\n>two||\nafter')).toEqual({
      text: 'one\ntwo\nafter',
      entities: [{ type: 'expandable_blockquote', offset: 0, length: 7 }],
    });
    expect(parseMarkdownV2('>one||')).toEqual({
      text: 'one',
      entities: [{ type: 'expandable_blockquote', offset: 0, length: 3 }],
    });
    // A spoiler that closes at the end of a quote's line is a spoiler, not the expandable mark.
    expect(parseMarkdownV2('>||s||')).toEqual({
      text: 's',
      entities: [
        { type: 'spoiler', offset: 0, length: 1 },
        { type: 'blockquote', offset: 0, length: 1 },
      ],
    });
    // "||" in the middle of a quote's line opens a spoiler.
    expect(parseMarkdownV2('>a||b||c').entities).toEqual([
      { type: 'spoiler', offset: 1, length: 1 },
      { type: 'blockquote', offset: 0, length: 3 },
    ]);
  });

  it('reads no quote marker inside code or pre', () => {
    expect(parseMarkdownV2('```\na\n>b```')).toEqual({
      text: 'a\n>b',
      entities: [{ type: 'pre', offset: 0, length: 4 }],
    });
    expect(parseMarkdownV2('`a\n>b`')).toEqual({ text: 'a\n>b', entities: [{ type: 'code', offset: 0, length: 4 }] });
  });

  it('reads the language of a pre up to white space, when more follows on its line', () => {
    expect(parseMarkdownV2('```js\ncode```')).toEqual({
      text: 'code',
      entities: [{ type: 'pre', offset: 0, length: 4, language: 'js' }],
    });
    expect(parseMarkdownV2('```js code```')).toEqual({
      text: ' code',
      entities: [{ type: 'pre', offset: 0, length: 5, language: 'js' }],
    });
    expect(parseMarkdownV2('```js\r\ncode```').entities[0]).toEqual({
      type: 'pre',
      offset: 0,
      length: 4,
      language: 'js',
    });
    expect(parseMarkdownV2('```js\rcode```').text).toBe('code');
    expect(parseMarkdownV2('```code```')).toEqual({ text: 'code', entities: [{ type: 'pre', offset: 0, length: 4 }] });
    expect(parseMarkdownV2('```\r\n\ncode```').text).toBe('\ncode');
  });

  it('closes a pre only at three backticks, and a code at one, going on right after it', () => {
    expect(parseMarkdownV2('```\na`b```')).toEqual({ text: 'a`b', entities: [{ type: 'pre', offset: 0, length: 3 }] });
    expect(parseMarkdownV2('x`a`bc')).toEqual({ text: 'xabc', entities: [{ type: 'code', offset: 1, length: 1 }] });
  });

  it('takes no language from a pre whose fence closes on its first line', () => {
    expect(parseMarkdownV2('```js```')).toEqual({ text: 'js', entities: [{ type: 'pre', offset: 0, length: 2 }] });
  });

  it('drops one line break after the language, and keeps a second', () => {
    expect(parseMarkdownV2('a```js\n\nx```')).toEqual({
      text: 'a\nx',
      entities: [{ type: 'pre', offset: 1, length: 2, language: 'js' }],
    });
  });

  it('reads a link URL with its own escapes, and a link without one as its text', () => {
    expect(parseMarkdownV2('[a](http://x.org/\\)\\\\b)')).toEqual({
      text: 'a',
      entities: [{ type: 'text_link', offset: 0, length: 1, url: 'http://x.org/)\\b' }],
    });
    expect(parseMarkdownV2('[example\\.com]')).toEqual({
      text: 'example.com',
      entities: [{ type: 'text_link', offset: 0, length: 11, url: 'http://example.com' }],
    });
    expect(parseMarkdownV2('[not a link]')).toEqual({ text: 'not a link', entities: [] });
    expect(parseMarkdownV2('[x](javascript:alert\\(1\\))')).toEqual({ text: 'x', entities: [] });
  });

  it('takes no URL from the text of a link that holds another link', () => {
    expect(parseMarkdownV2('[a\\.com [b\\.com]]')).toEqual({
      text: 'a.com b.com',
      entities: [{ type: 'text_link', offset: 6, length: 5, url: 'http://b.com' }],
    });
    expect(parseMarkdownV2('[[b\\.com](c.com)]').entities).toEqual([
      { type: 'text_link', offset: 0, length: 5, url: 'http://c.com' },
    ]);
  });
});
