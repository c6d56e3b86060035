import { MessageEntity, sortEntities } from './entities';

/** What may precede a detected entity: the start of the text, white space or an opening bracket. */
const BEFORE = String.raw`(^|[\s(\[{"'«])`;
/** What may follow one: the end, white space or punctuation. */
const AFTER = String.raw`(?=$|[\s.,!?;:)\]}"'»])`;

const DETECTORS: Array<{ type: MessageEntity['type']; pattern: RegExp }> = [
  { type: 'bot_command', pattern: new RegExp(`${BEFORE}(\\/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?)${AFTER}`, 'g') },
  {
    type: 'email',
    pattern: new RegExp(`${BEFORE}([A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)*\\.[A-Za-z]{2,})${AFTER}`, 'g'),
  },
  { type: 'mention', pattern: new RegExp(`${BEFORE}(@[A-Za-z0-9_]{3,32})${AFTER}`, 'g') },
  { type: 'hashtag', pattern: new RegExp(`${BEFORE}(#[\\p{L}\\p{N}_]*\\p{L}[\\p{L}\\p{N}_]*)${AFTER}`, 'gu') },
  { type: 'url', pattern: new RegExp(`${BEFORE}((?:https?|ftp|tg):\\/\\/[^\\s<>"]+)`, 'gi') },
];

/**
 * Commands, mentions, hashtags, URLs and e-mail addresses in a text, as Telegram's server marks them
 * in every message: frameworks route commands by these entities. UTF-16 offsets.
 */
export function detectEntities(text: string): MessageEntity[] {
  const found: MessageEntity[] = [];
  for (const { type, pattern } of DETECTORS) {
    for (const match of text.matchAll(pattern)) {
      const offset = (match.index ?? 0) + match[1].length;
      // A URL does not take the punctuation that ends its sentence.
      const token = type === 'url' ? match[2].replace(/[.,!?;:)\]}'"»]+$/, '') : match[2];
      const entity = { type, offset, length: token.length };
      if (!found.some((other) => overlaps(other, entity))) found.push(entity);
    }
  }
  return sortEntities(found);
}

function overlaps(a: MessageEntity, b: MessageEntity): boolean {
  return a.offset < b.offset + b.length && b.offset < a.offset + a.length;
}

/** Entity types whose text is not scanned again: a detected entity never overlaps one of them. */
const OPAQUE = new Set(['code', 'pre', 'text_link', 'mention', 'hashtag', 'bot_command', 'url', 'email']);

/**
 * A message's stored (formatting) entities with those detected in its text, as readers see them:
 * detection skips code, links and entities that were given explicitly.
 */
export function withDetectedEntities(text: string | null, stored: readonly MessageEntity[]): MessageEntity[] {
  if (!text) return [...stored];
  const opaque = stored.filter((entity) => OPAQUE.has(entity.type));
  const detected = detectEntities(text).filter((entity) => !opaque.some((other) => overlaps(other, entity)));
  return sortEntities([...stored, ...detected]);
}
