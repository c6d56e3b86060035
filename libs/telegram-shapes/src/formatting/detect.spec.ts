import { detectedEntitiesOf, detectEntities } from './detect';
import { MessageEntity, sortEntities } from './entities';

/**
 * Detection as it was written with regular expressions before the scanners replaced it: the rules
 * the scanners must keep. Some of these patterns backtrack quadratically, so only short texts here.
 */
function detectWithPatterns(text: string): MessageEntity[] {
  const before = String.raw`(^|[\s(\[{"'«])`;
  const after = String.raw`(?=$|[\s.,!?;:)\]}"'»])`;
  const patterns: Array<{ type: MessageEntity['type']; pattern: RegExp }> = [
    {
      type: 'bot_command',
      pattern: new RegExp(`${before}(\\/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?)${after}`, 'g'),
    },
    {
      type: 'email',
      pattern: new RegExp(
        `${before}([A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)*\\.[A-Za-z]{2,})${after}`,
        'g',
      ),
    },
    { type: 'mention', pattern: new RegExp(`${before}(@[A-Za-z0-9_]{3,32})${after}`, 'g') },
    { type: 'hashtag', pattern: new RegExp(`${before}(#[\\p{L}\\p{N}_]*\\p{L}[\\p{L}\\p{N}_]*)${after}`, 'gu') },
    { type: 'url', pattern: new RegExp(`${before}((?:https?|ftp|tg):\\/\\/[^\\s<>"]+)`, 'gi') },
  ];
  const found: MessageEntity[] = [];
  for (const { type, pattern } of patterns) {
    for (const match of text.matchAll(pattern)) {
      const offset = (match.index ?? 0) + match[1].length;
      const token = type === 'url' ? match[2].replace(/[.,!?;:)\]}'"»]+$/, '') : match[2];
      const entity = { type, offset, length: token.length };
      const overlaps = (other: MessageEntity) =>
        other.offset < entity.offset + entity.length && entity.offset < other.offset + other.length;
      if (!found.some(overlaps)) found.push(entity);
    }
  }
  return sortEntities(found);
}

/** A small deterministic generator (mulberry32), so a failure names a text that can be run again. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Pieces that make every rule meet its edges: boundaries, punctuation, schemes, other scripts, astral letters. */
const PIECES = [
  'a',
  'Z',
  'q',
  '7',
  '_',
  '.',
  '-',
  '%',
  '+',
  '@',
  '#',
  '/',
  ' ',
  '\n',
  '\u00a0',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  '"',
  "'",
  '«',
  '»',
  ',',
  '!',
  '?',
  ';',
  ':',
  '<',
  '>',
  '&',
  'ä',
  'Я',
  '٣',
  '𝐀',
  '😀',
  '\ud800',
  'http://',
  'HTTPS://',
  'ftp://',
  'tg://',
  'bot',
  'ab',
  'cd',
  'b.cd',
  'start',
  'x@y.zz',
  '.com',
  '@abc',
  '#tag',
  '/help',
  'a'.repeat(31),
  '1'.repeat(33),
];

function randomText(next: () => number): string {
  const count = 1 + Math.floor(next() * 24);
  let text = '';
  for (let i = 0; i < count; i++) text += PIECES[Math.floor(next() * PIECES.length)];
  return text;
}

describe('entity detection by scanners', () => {
  it('finds what the regular expressions found, on 20 000 random texts', () => {
    const next = random(35);
    for (let i = 0; i < 20_000; i++) {
      const text = randomText(next);
      const found = detectEntities(text);
      const expected = detectWithPatterns(text);
      if (JSON.stringify(found) !== JSON.stringify(expected)) {
        // The text that differs, in the failure message.
        expect({ text, found }).toEqual({ text, found: expected });
      }
    }
  });

  it.each([
    ['#news, #2024 #2024a #_x #ünïcödé #𝐀𝐁 #tag😀 #a#b', ['#news', '#2024a', '#_x', '#ünïcödé', '#𝐀𝐁']],
    [
      'mail bob@example.org. or a.b+c@mail.co.uk, not x@y.z1 but x@y.ab.1 and x@-a.bc',
      ['bob@example.org', 'a.b+c@mail.co.uk', 'x@y.ab', 'x@-a.bc'],
    ],
    ['(https://a.b/c?d=(e)). «http://x.y/z»', ['https://a.b/c?d=(e', 'http://x.y/z']],
    ['/start@my_bot /a@bc /' + 'x'.repeat(33) + ' @ab @abc @' + 'y'.repeat(33), ['/start@my_bot', '@abc']],
  ])('keeps the rules of each kind: %j', (text, expected) => {
    const found = detectEntities(text).map((entity) => text.slice(entity.offset, entity.offset + entity.length));
    expect(found).toEqual(expected);
  });

  it('leaves out what overlaps code or a link of the formatting, however many there are', () => {
    const text = '/a '.repeat(300);
    const code = Array.from({ length: 100 }, (_, i) => ({ type: 'code' as const, offset: i * 6, length: 2 }));
    const found = detectedEntitiesOf(text, code);
    expect(found).toHaveLength(200);
    expect(found.every((entity) => entity.offset % 6 === 3 || entity.offset >= 600)).toBe(true);
  });
});
