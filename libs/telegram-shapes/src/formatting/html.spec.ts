import { EntityParseError } from './entities';
import { parseHtml } from './html';

const text = (input: string) => parseHtml(input).text;

describe('parseHtml character references', () => {
  it('reads the four named references in any letter case, and leaves others as written', () => {
    expect(text('&lt;&gt;&amp;&quot;')).toBe('<>&"');
    expect(text('&LT;&Amp;')).toBe('<&');
    expect(text('&nbsp;&apos;&copy;')).toBe('&nbsp;&apos;&copy;');
    expect(text('&lt &amp')).toBe('&lt &amp');
  });

  it('reads a reference only where its ampersand stands, not one a few characters on', () => {
    expect(text('&x &lt;')).toBe('&x <');
  });

  it('reads decimal and hexadecimal references of every Unicode scalar value, up to 8 digits', () => {
    expect(text('&#65;&#x42;&#X43;&#x1F600;')).toBe('ABC😀');
    expect(text('&#1;')).toBe('\u0001');
    expect(text('&#xD7FF;&#xE000;&#x10FFFF;')).toBe('\ud7ff\ue000\u{10ffff}');
    expect(text('&#00000065;')).toBe('A');
    expect(text('&#x0000041;')).toBe('A');
  });

  it('leaves a reference to no character as written: zero, surrogates, past U+10FFFF, more than 8 digits', () => {
    for (const reference of [
      '&#0;',
      '&#x0;',
      '&#xD800;',
      '&#xDBFF;',
      '&#xDC00;',
      '&#xDFFF;',
      '&#55296;',
      '&#x110000;',
      '&#1114112;',
      '&#xFFFFFFFF;',
      '&#99999999;',
      '&#000000065;',
      '&#x;',
      '&#;',
      '&#x1G;',
    ]) {
      expect(text(`a${reference}b`)).toBe(`a${reference}b`);
    }
  });

  it('decodes references in attribute values, the same way', () => {
    const [link] = parseHtml('<a href="https://example.com/?a=1&amp;b=&#50;&#x110000;">x</a>').entities;
    expect(link.url).toBe('https://example.com/?a=1&b=2&#x110000;');
  });
});

describe('parseHtml tags', () => {
  it('reads attributes quoted either way, unquoted, or without a value, in any letter case', () => {
    expect(parseHtml(`<a HREF='https://a.example/x'>a</a><a href=https://b.example/y>b</a>`).entities).toEqual([
      { type: 'text_link', offset: 0, length: 1, url: 'https://a.example/x' },
      { type: 'text_link', offset: 1, length: 1, url: 'https://b.example/y' },
    ]);
    expect(parseHtml('<blockquote expandable>q</blockquote><blockquote>r</blockquote>').entities).toEqual([
      { type: 'expandable_blockquote', offset: 0, length: 1 },
      { type: 'blockquote', offset: 1, length: 1 },
    ]);
    expect(parseHtml('<b\n>x</b >').entities).toEqual([{ type: 'bold', offset: 0, length: 1 }]);
    expect(parseHtml('<span class = "tg-spoiler">s</span>').entities).toEqual([
      { type: 'spoiler', offset: 0, length: 1 },
    ]);
  });

  it('keeps the text of a link it cannot follow or that names a user, without an entity', () => {
    expect(parseHtml('<a href="javascript:alert(1)">x</a>')).toEqual({ text: 'x', entities: [] });
    expect(parseHtml('<a>x</a>')).toEqual({ text: 'x', entities: [] });
    expect(parseHtml('<a href="tg://user?id=1">x</a>')).toEqual({ text: 'x', entities: [] });
    expect(parseHtml('<tg-emoji emoji-id="1">👍</tg-emoji>')).toEqual({ text: '👍', entities: [] });
  });

  it('gives a pre the language of the code that spans all of it, and nothing else', () => {
    expect(parseHtml('<pre><code class="language-js">x</code></pre>').entities).toEqual([
      { type: 'pre', offset: 0, length: 1, language: 'js' },
    ]);
    expect(parseHtml('<pre><code>x</code></pre>').entities).toEqual([{ type: 'pre', offset: 0, length: 1 }]);
    expect(parseHtml('<pre>a<code class="language-js">x</code></pre>').entities).toEqual([
      { type: 'code', offset: 1, length: 1 },
      { type: 'pre', offset: 0, length: 2 },
    ]);
    expect(parseHtml('<code class="language-js">x</code>').entities).toEqual([{ type: 'code', offset: 0, length: 1 }]);
    expect(parseHtml('<pre><code class="lang-js">x</code></pre>').entities).toEqual([
      { type: 'pre', offset: 0, length: 1 },
    ]);
  });

  it('reads a self-closing start tag as the tag it opens', () => {
    expect(parseHtml('a<b/>x</b>')).toEqual({ text: 'ax', entities: [{ type: 'bold', offset: 1, length: 1 }] });
  });

  it('takes a language only from a class that is language-… and nothing else, on one line', () => {
    for (const cls of ['xlanguage-js', 'language-js\nx']) {
      expect(parseHtml(`<pre><code class="${cls}">x</code></pre>`).entities).toEqual([
        { type: 'pre', offset: 0, length: 1 },
      ]);
    }
  });

  it('makes only a blockquote expandable: the attribute means nothing on another tag', () => {
    expect(parseHtml('<b expandable>x</b>').entities).toEqual([{ type: 'bold', offset: 0, length: 1 }]);
  });

  it('gives only a pre the code that spans it: bold over the same span keeps the code', () => {
    expect(parseHtml('<b><code>x</code></b>').entities).toEqual([
      { type: 'code', offset: 0, length: 1 },
      { type: 'bold', offset: 0, length: 1 },
    ]);
  });

  it('gives a pre the language of the first code written over its span, the other code kept', () => {
    expect(parseHtml('<pre><code class="language-a"><code class="language-b">x</code></code></pre>').entities).toEqual([
      { type: 'code', offset: 0, length: 1 },
      { type: 'pre', offset: 0, length: 1, language: 'b' },
    ]);
  });

  it.each([
    ['<b', 'Unclosed start tag at byte offset 0'],
    ['é<b class', 'Unclosed start tag at byte offset 2'],
    ['<a href=', 'Unclosed start tag at byte offset 0'],
    ['<a href="x>y</a>', 'Unclosed start tag at byte offset 0'],
    ['<marquee>x</marquee>', 'Unsupported start tag "marquee" at byte offset 0'],
    ['<b =x>y</b>', 'Empty attribute name in the tag "b" at byte offset 0'],
    ['<span>x</span>', 'Tag "span" must have class "tg-spoiler" at byte offset 0'],
    ['x</b', 'Unclosed end tag at byte offset 1'],
    ['x</b>', 'Unexpected end tag at byte offset 1'],
    ['<b>x</i>', 'Unmatched end tag at byte offset 4, expected "</b>", found "</i>"'],
    ['<b><i>x</i>', 'Can\'t find end tag corresponding to start tag "b"'],
  ])('refuses %j as Telegram does', (input, message) => {
    expect(() => parseHtml(input)).toThrow(new EntityParseError(message));
  });
});
