/**
 * Telegram's MessageEntity as both APIs carry it: offsets and lengths count UTF-16 code units of the
 * text, as JavaScript strings do, so `text.slice(offset, offset + length)` is the entity's text.
 */
export const FORMATTING_TYPES = [
  'bold',
  'italic',
  'underline',
  'strikethrough',
  'spoiler',
  'code',
  'pre',
  'text_link',
  'blockquote',
  'expandable_blockquote',
] as const;

/** Found in the text itself, as Telegram's server marks them, once when the text is written (detect.ts). */
export const DETECTED_TYPES = ['mention', 'hashtag', 'bot_command', 'url', 'email'] as const;

export const ENTITY_TYPES = [...FORMATTING_TYPES, ...DETECTED_TYPES] as const;

export type EntityType = (typeof ENTITY_TYPES)[number];

export interface MessageEntity {
  type: EntityType;
  offset: number;
  length: number;
  /** text_link only. */
  url?: string;
  /** pre only, when given. */
  language?: string;
}

/** Plain text and the entities that format it. */
export interface FormattedText {
  text: string;
  entities: MessageEntity[];
}

/** Telegram allows at most 100 entities in one message. */
export const MAX_ENTITIES = 100;

/**
 * A refusal of malformed markup or entities; `message` is Telegram's own wording (what follows
 * `Bad Request: can't parse entities: `).
 */
export class EntityParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EntityParseError';
  }
}

/** The UTF-8 byte offset of a string index: Telegram's parse errors name byte offsets of the input. */
export function byteOffset(input: string, index: number): number {
  // Stryker disable next-line StringLiteral: Buffer.byteLength counts an empty encoding name as UTF-8 too.
  return Buffer.byteLength(input.slice(0, index), 'utf8');
}

/** Outer entities first: by offset, then the longer one; entities of one span in the order of ENTITY_TYPES. */
export function sortEntities(entities: MessageEntity[]): MessageEntity[] {
  return [...entities].sort(compareEntities);
}

const RANK = new Map<string, number>(ENTITY_TYPES.map((type, rank) => [type, rank]));

/** The order of sortEntities. */
export function compareEntities(a: MessageEntity, b: MessageEntity): number {
  return a.offset - b.offset || b.length - a.length || RANK.get(a.type)! - RANK.get(b.type)!;
}

/**
 * A link target as Telegram accepts it: http(s), ftp and tg URLs; a bare host gets `http://` as
 * Telegram adds it. Anything else is no link (null), and Telegram then drops the entity, not the text.
 */
export function normalizeUrl(raw: string): string | null {
  const url = raw.trim();
  // An empty link is none either: it fails as a URL below.
  if (url.length > 2048 || /\s/.test(url)) return null;
  if (/^tg:\/\/[a-z0-9_-]/i.test(url)) return url;
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(url) ? url : `http://${url}`;
  let parsed: URL;
  try {
    parsed = new URL(withScheme);
  } catch {
    return null;
  }
  if (!['http:', 'https:', 'ftp:'].includes(parsed.protocol) || !parsed.hostname.includes('.')) return null;
  return withScheme;
}

/**
 * Code and pre show their text as it is: entities inside them are dropped, and empty entities are
 * never kept. Blockquotes do not nest.
 */
export function normalizeEntities(entities: MessageEntity[]): MessageEntity[] {
  const sorted = sortEntities(entities.filter((entity) => entity.length > 0));
  const inVerbatim = containedByAnother(sorted, (entity) => entity.type === 'code' || entity.type === 'pre');
  const inQuote = containedByAnother(sorted, isQuote);
  return sorted.filter((entity, i) => !inVerbatim[i] && !(isQuote(entity) && inQuote[i]));
}

function isQuote(entity: MessageEntity): boolean {
  return entity.type === 'blockquote' || entity.type === 'expandable_blockquote';
}

/**
 * For each entity of `sorted` (in the order of sortEntities), whether another entity of the group
 * contains it (an equal span counts). One pass, so that markup with hundreds of entities costs no
 * more than its length: the group's entities that start where it starts or before contain it when
 * the furthest of them reaches its end; the two furthest ends are kept so it never contains itself.
 */
function containedByAnother(sorted: MessageEntity[], inGroup: (entity: MessageEntity) => boolean): boolean[] {
  const group = sorted.flatMap((entity, index) => (inGroup(entity) ? [{ entity, index }] : []));
  let next = 0;
  let furthest = { end: -1, index: -1 };
  let secondEnd = -1;
  return sorted.map((entity, index) => {
    while (next < group.length && group[next].entity.offset <= entity.offset) {
      const { entity: member, index: at } = group[next++];
      const end = member.offset + member.length;
      // Stryker disable next-line EqualityOperator: an end equal to the furthest leaves the same two furthest ends.
      if (end > furthest.end) {
        secondEnd = furthest.end;
        furthest = { end, index: at };
      } else if (end > secondEnd) {
        secondEnd = end;
      }
    }
    const reach = furthest.index === index ? secondEnd : furthest.end;
    return reach >= entity.offset + entity.length;
  });
}

/**
 * Telegram trims leading and trailing white space of a parsed text; entities move with the text and
 * are cut to what is left.
 */
export function trimFormatted({ text, entities }: FormattedText): FormattedText {
  const start = text.length - text.trimStart().length;
  const trimmed = text.trim();
  const kept: MessageEntity[] = [];
  for (const entity of entities) {
    const from = Math.max(entity.offset - start, 0);
    const to = Math.min(entity.offset + entity.length - start, trimmed.length);
    if (to > from) kept.push({ ...entity, offset: from, length: to - from });
  }
  return { text: trimmed, entities: kept };
}
