import { MessageEntity, sortEntities } from './entities';

/**
 * Detection as it was written with regular expressions before the scanners replaced it: the rules
 * the scanners must keep. Some of these patterns backtrack quadratically, so only short texts here.
 */
export function detectWithPatterns(text: string): MessageEntity[] {
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
export function random(seed: number): () => number {
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

export function randomText(next: () => number): string {
  const count = 1 + Math.floor(next() * 24);
  let text = '';
  for (let i = 0; i < count; i++) text += PIECES[Math.floor(next() * PIECES.length)];
  return text;
}
