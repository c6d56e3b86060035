import { checkEntities, EntityParseError, MessageEntity, parseFormatted, ParseMode, parseModeOf } from './index';
import { detectedEntitiesOf, detectEntities, withDetectedEntities } from './detect';

type Parsed = { text: string; entities: MessageEntity[] };
type Case = [ParseMode, string, Parsed | { error: string }];

const e = (
  type: MessageEntity['type'],
  offset: number,
  length: number,
  extra: Partial<MessageEntity> = {},
): MessageEntity => ({
  type,
  offset,
  length,
  ...extra,
});

/** Telegram's documented examples ("Formatting options"), one feature per row, and its refusals. */
const CASES: Case[] = [
  // MarkdownV2
  ['MarkdownV2', '*bold \\*text*', { text: 'bold *text', entities: [e('bold', 0, 10)] }],
  ['MarkdownV2', '_italic \\*text_', { text: 'italic *text', entities: [e('italic', 0, 12)] }],
  ['MarkdownV2', '__underline__', { text: 'underline', entities: [e('underline', 0, 9)] }],
  ['MarkdownV2', '~strikethrough~', { text: 'strikethrough', entities: [e('strikethrough', 0, 13)] }],
  ['MarkdownV2', '||spoiler||', { text: 'spoiler', entities: [e('spoiler', 0, 7)] }],
  [
    'MarkdownV2',
    '*bold _italic bold ~italic bold strikethrough ||italic bold strikethrough spoiler||~ __underline italic bold___ bold*',
    {
      text: 'bold italic bold italic bold strikethrough italic bold strikethrough spoiler underline italic bold bold',
      entities: [
        e('bold', 0, 103),
        e('italic', 5, 93),
        e('strikethrough', 17, 59),
        e('spoiler', 43, 33),
        e('underline', 77, 21),
      ],
    },
  ],
  [
    'MarkdownV2',
    '[inline URL](http://www.example.com/)',
    { text: 'inline URL', entities: [e('text_link', 0, 10, { url: 'http://www.example.com/' })] },
  ],
  [
    'MarkdownV2',
    '[a \\(b\\)](http://x.org/a\\)b)',
    { text: 'a (b)', entities: [e('text_link', 0, 5, { url: 'http://x.org/a)b' })] },
  ],
  ['MarkdownV2', '`inline fixed-width code`', { text: 'inline fixed-width code', entities: [e('code', 0, 23)] }],
  ['MarkdownV2', '`a*b_c \\` d`', { text: 'a*b_c ` d', entities: [e('code', 0, 9)] }],
  ['MarkdownV2', '```\npre-formatted block\n```', { text: 'pre-formatted block', entities: [e('pre', 0, 19)] }],
  [
    'MarkdownV2',
    '```python\nprint("hi")\n```',
    { text: 'print("hi")', entities: [e('pre', 0, 11, { language: 'python' })] },
  ],
  [
    'MarkdownV2',
    '>Block quotation started\n>Block quotation continued\nafter',
    { text: 'Block quotation started\nBlock quotation continued\nafter', entities: [e('blockquote', 0, 49)] },
  ],
  [
    'MarkdownV2',
    '**>Hidden part\n>continued||',
    { text: 'Hidden part\ncontinued', entities: [e('expandable_blockquote', 0, 21)] },
  ],
  [
    'MarkdownV2',
    '___italic underline_**__',
    { text: 'italic underline', entities: [e('italic', 0, 16), e('underline', 0, 16)] },
  ],
  ['MarkdownV2', '😀 *bold* 👍🏽', { text: '😀 bold 👍🏽', entities: [e('bold', 3, 4)] }],
  ['MarkdownV2', '*𝄞 music*', { text: '𝄞 music', entities: [e('bold', 0, 8)] }],
  ['MarkdownV2', 'Price: 5\\.00\\!', { text: 'Price: 5.00!', entities: [] }],
  ['MarkdownV2', 'Price: 5.00', { error: "Character '.' is reserved and must be escaped with the preceding '\\'" }],
  ['MarkdownV2', 'a | b', { error: "Character '|' is reserved and must be escaped with the preceding '\\'" }],
  ['MarkdownV2', 'x > y', { error: "Character '>' is reserved and must be escaped with the preceding '\\'" }],
  ['MarkdownV2', '*bold', { error: "Can't find end of Bold entity at byte offset 0" }],
  ['MarkdownV2', '😀 _it', { error: "Can't find end of Italic entity at byte offset 5" }],
  ['MarkdownV2', 'é `code', { error: "Can't find end of Code entity at byte offset 3" }],
  ['MarkdownV2', '[link](http://x.org', { error: "Can't find end of a URL at byte offset 7" }],
  // HTML
  ['HTML', '<b>bold</b>, <strong>bold</strong>', { text: 'bold, bold', entities: [e('bold', 0, 4), e('bold', 6, 4)] }],
  [
    'HTML',
    '<i>i</i><em>e</em><u>u</u><ins>n</ins>',
    { text: 'ieun', entities: [e('italic', 0, 1), e('italic', 1, 1), e('underline', 2, 1), e('underline', 3, 1)] },
  ],
  [
    'HTML',
    '<s>s</s><strike>t</strike><del>d</del>',
    { text: 'std', entities: [e('strikethrough', 0, 1), e('strikethrough', 1, 1), e('strikethrough', 2, 1)] },
  ],
  [
    'HTML',
    '<span class="tg-spoiler">a</span><tg-spoiler>b</tg-spoiler>',
    { text: 'ab', entities: [e('spoiler', 0, 1), e('spoiler', 1, 1)] },
  ],
  [
    'HTML',
    '<b>bold <i>italic bold <s>italic bold strikethrough <span class="tg-spoiler">italic bold strikethrough spoiler</span></s> <u>underline italic bold</u></i> bold</b>',
    {
      text: 'bold italic bold italic bold strikethrough italic bold strikethrough spoiler underline italic bold bold',
      entities: [
        e('bold', 0, 103),
        e('italic', 5, 93),
        e('strikethrough', 17, 59),
        e('spoiler', 43, 33),
        e('underline', 77, 21),
      ],
    },
  ],
  [
    'HTML',
    '<a href="http://www.example.com/">inline URL</a>',
    { text: 'inline URL', entities: [e('text_link', 0, 10, { url: 'http://www.example.com/' })] },
  ],
  [
    'HTML',
    "<a href='example.com?a=1&amp;b=2'>x</a>",
    { text: 'x', entities: [e('text_link', 0, 1, { url: 'http://example.com?a=1&b=2' })] },
  ],
  ['HTML', '<a href="javascript:alert(1)">x</a>', { text: 'x', entities: [] }],
  ['HTML', '<code>inline fixed-width code</code>', { text: 'inline fixed-width code', entities: [e('code', 0, 23)] }],
  ['HTML', '<pre>block</pre>', { text: 'block', entities: [e('pre', 0, 5)] }],
  [
    'HTML',
    '<pre><code class="language-python">print(1)</code></pre>',
    { text: 'print(1)', entities: [e('pre', 0, 8, { language: 'python' })] },
  ],
  ['HTML', '<code><b>x</b></code>', { text: 'x', entities: [e('code', 0, 1)] }],
  ['HTML', '<blockquote>quote\nmore</blockquote>', { text: 'quote\nmore', entities: [e('blockquote', 0, 10)] }],
  [
    'HTML',
    '<blockquote expandable>hidden</blockquote>',
    { text: 'hidden', entities: [e('expandable_blockquote', 0, 6)] },
  ],
  [
    'HTML',
    '1 &lt; 2 &amp;&amp; 3 &gt; 2 &quot;ok&quot; &#128512; &#x1F44D; &nbsp;',
    { text: '1 < 2 && 3 > 2 "ok" 😀 👍 &nbsp;', entities: [] },
  ],
  ['HTML', '👍🏽 <b>𝄞</b>', { text: '👍🏽 𝄞', entities: [e('bold', 5, 2)] }],
  ['HTML', '<B>caps</B>', { text: 'caps', entities: [e('bold', 0, 4)] }],
  ['HTML', '  <b>padded</b>\n', { text: 'padded', entities: [e('bold', 0, 6)] }],
  ['HTML', '<b>bold</i>', { error: 'Unmatched end tag at byte offset 7, expected "</b>", found "</i>"' }],
  ['HTML', '<b>bold', { error: 'Can\'t find end tag corresponding to start tag "b"' }],
  ['HTML', 'x</b>', { error: 'Unexpected end tag at byte offset 1' }],
  ['HTML', '😀<br>', { error: 'Unsupported start tag "br" at byte offset 4' }],
  ['HTML', 'a < b', { error: 'Unsupported start tag "" at byte offset 2' }],
  ['HTML', '<b', { error: 'Unclosed start tag at byte offset 0' }],
  ['HTML', '<b>x</b', { error: 'Unclosed end tag at byte offset 4' }],
  ['HTML', '<span>x</span>', { error: 'Tag "span" must have class "tg-spoiler" at byte offset 0' }],
  ['HTML', '<a ="x">y</a>', { error: 'Empty attribute name in the tag "a" at byte offset 0' }],
  // Markdown (legacy)
  ['Markdown', '*bold text*', { text: 'bold text', entities: [e('bold', 0, 9)] }],
  ['Markdown', '_italic text_', { text: 'italic text', entities: [e('italic', 0, 11)] }],
  [
    'Markdown',
    '[inline URL](http://www.example.com/)',
    { text: 'inline URL', entities: [e('text_link', 0, 10, { url: 'http://www.example.com/' })] },
  ],
  ['Markdown', '`inline fixed-width code`', { text: 'inline fixed-width code', entities: [e('code', 0, 23)] }],
  ['Markdown', '```python\nprint(1)```', { text: 'print(1)', entities: [e('pre', 0, 8, { language: 'python' })] }],
  ['Markdown', '_snake_\\__case_', { text: 'snake_case', entities: [e('italic', 0, 5), e('italic', 6, 4)] }],
  ['Markdown', '*2*\\**2=4*', { text: '2*2=4', entities: [e('bold', 0, 1), e('bold', 2, 3)] }],
  ['Markdown', '1.5 + 2 = 3.5!', { text: '1.5 + 2 = 3.5!', entities: [] }],
  ['Markdown', '🎉 *bold _not italic_*', { text: '🎉 bold _not italic_', entities: [e('bold', 3, 17)] }],
  ['Markdown', '🎉 *bold', { error: "Can't find end of the entity starting at byte offset 5" }],
];

describe('Telegram markup parsers', () => {
  it.each(CASES)('%s %j', (mode, input, expected) => {
    if ('error' in expected) {
      expect(() => parseFormatted(input, mode)).toThrow(new EntityParseError(expected.error));
      return;
    }
    const parsed: Parsed = parseFormatted(input, mode);
    expect(parsed).toEqual(expected);
    // Offsets are UTF-16 code units: slicing the JavaScript string gives each entity's text.
    for (const entity of parsed.entities) expect(entity.offset + entity.length).toBeLessThanOrEqual(parsed.text.length);
  });

  it('reads parse_mode case-insensitively, an empty one as none, and an unknown one as undefined', () => {
    expect(parseModeOf('html')).toBe('HTML');
    expect(parseModeOf('MARKDOWNV2')).toBe('MarkdownV2');
    expect(parseModeOf('markdown')).toBe('Markdown');
    expect(parseModeOf('')).toBeNull();
    expect(parseModeOf('BBCode')).toBeUndefined();
  });
});

describe('given entities', () => {
  it('keeps formatting, drops the ones found in the text again, and counts UTF-16 units', () => {
    const text = '😀 bold /start';
    expect(
      checkEntities(text, [
        { type: 'bold', offset: 3, length: 4 },
        { type: 'bot_command', offset: 8, length: 6 },
        { type: 'text_link', offset: 0, length: 2, url: 'https://example.com' },
      ]),
    ).toEqual([e('text_link', 0, 2, { url: 'https://example.com' }), e('bold', 3, 4)]);
  });

  it.each([
    [[{ type: 'bold', offset: 0, length: 99 }], 'entity 0 ends after the text (offsets count UTF-16 code units)'],
    [[{ type: 'text_mention', offset: 0, length: 1 }], 'entity 0 has an unsupported type'],
    [[{ type: 'text_link', offset: 0, length: 1, url: 'javascript:x' }], 'entity 0: a text_link needs a valid url'],
    [[{ type: 'bold', offset: -1, length: 1 }], 'entity 0 needs an offset of 0 or more and a length of 1 or more'],
    [{ type: 'bold' }, 'entities must be an array of MessageEntity'],
  ])('refuses %j', (given, message) => {
    expect(() => checkEntities('hi there', given)).toThrow(new EntityParseError(message));
  });
});

describe('detected entities', () => {
  it('finds commands, mentions, hashtags, URLs and e-mails with UTF-16 offsets', () => {
    const text = '🙂 /start@my_bot hi @alice #news https://example.com/a?b=1. mail bob@example.org';
    const found = detectEntities(text).map((entity) => [
      entity.type,
      text.slice(entity.offset, entity.offset + entity.length),
    ]);
    expect(found).toEqual([
      ['bot_command', '/start@my_bot'],
      ['mention', '@alice'],
      ['hashtag', '#news'],
      ['url', 'https://example.com/a?b=1'],
      ['email', 'bob@example.org'],
    ]);
  });

  it('does not look inside code or links that were given, and shows what it found beside them', () => {
    const text = 'run /start or /help at https://example.com';
    const formatting = [e('code', 4, 6), e('text_link', 23, 19, { url: 'https://example.org' })];
    const detected = detectedEntitiesOf(text, formatting);
    expect(detected).toEqual([e('bot_command', 14, 5)]);
    expect(withDetectedEntities(formatting, detected)).toEqual([...formatting.slice(0, 1), ...detected, formatting[1]]);
    expect(withDetectedEntities(formatting, null)).toEqual(formatting);
  });
});
