import { EntityParseError } from './entities';
import { parseMarkdown } from './markdown';

describe('parseMarkdown (legacy Markdown)', () => {
  it('reads bold, italic and code, their text as written', () => {
    expect(parseMarkdown('*a_b* _c*d_ `e*f`')).toEqual({
      text: 'a_b c*d e*f',
      entities: [
        { type: 'bold', offset: 0, length: 3 },
        { type: 'italic', offset: 4, length: 3 },
        { type: 'code', offset: 8, length: 3 },
      ],
    });
  });

  it('escapes only its markup characters with a backslash', () => {
    expect(parseMarkdown('\\_ \\* \\` \\[ \\a \\')).toEqual({ text: '_ * ` [ \\a \\', entities: [] });
  });

  it('reads a pre block, its language from a first line followed by a line break', () => {
    expect(parseMarkdown('x```js\nlet a```')).toEqual({
      text: 'xlet a',
      entities: [{ type: 'pre', offset: 1, length: 5, language: 'js' }],
    });
    expect(parseMarkdown('```py\r\nb```').entities).toEqual([{ type: 'pre', offset: 0, length: 1, language: 'py' }]);
    expect(parseMarkdown('```\nplain```')).toEqual({
      text: 'plain',
      entities: [{ type: 'pre', offset: 0, length: 5 }],
    });
    expect(parseMarkdown('```\r\nplain```').text).toBe('plain');
    expect(parseMarkdown('```js code```')).toEqual({
      text: 'js code',
      entities: [{ type: 'pre', offset: 0, length: 7 }],
    });
    expect(parseMarkdown('```a\n\nb```y').text).toBe('\nby');
  });

  it('names no language when the first line holds white space, and keeps its line break', () => {
    expect(parseMarkdown('x``` y\nz```')).toEqual({
      text: 'x y\nz',
      entities: [{ type: 'pre', offset: 1, length: 4 }],
    });
    expect(parseMarkdown('x```a b\nc```')).toEqual({
      text: 'xa b\nc',
      entities: [{ type: 'pre', offset: 1, length: 5 }],
    });
  });

  it('looks for the end of a link after its opening bracket: a ] before it is text', () => {
    expect(parseMarkdown('][a](http://b.com)')).toEqual({
      text: ']a',
      entities: [{ type: 'text_link', offset: 1, length: 1, url: 'http://b.com' }],
    });
  });

  it('reads links, and keeps the text of a link it cannot follow or that names a user', () => {
    expect(parseMarkdown('see [docs](example.com/a) now')).toEqual({
      text: 'see docs now',
      entities: [{ type: 'text_link', offset: 4, length: 4, url: 'http://example.com/a' }],
    });
    expect(parseMarkdown('[x](javascript:alert(1))')).toEqual({ text: 'x)', entities: [] });
    expect(parseMarkdown('[x](tg://user?id=1)')).toEqual({ text: 'x', entities: [] });
    expect(parseMarkdown('[x] (y)')).toEqual({ text: 'x (y)', entities: [] });
  });

  it.each([
    ['é*bold', "Can't find end of the entity starting at byte offset 2"],
    ['_italic', "Can't find end of the entity starting at byte offset 0"],
    ['a`code', "Can't find end of the entity starting at byte offset 1"],
    ['```pre', "Can't find end of the entity starting at byte offset 0"],
    ['ab[text', "Can't find end of the entity starting at byte offset 2"],
    ['[text](url', "Can't find end of the entity starting at byte offset 0"],
  ])('refuses %j', (input, message) => {
    expect(() => parseMarkdown(input)).toThrow(new EntityParseError(message));
  });
});
