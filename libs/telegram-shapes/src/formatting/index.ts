import {
  ENTITY_TYPES,
  EntityParseError,
  FORMATTING_TYPES,
  FormattedText,
  MAX_ENTITIES,
  MessageEntity,
  normalizeEntities,
  normalizeUrl,
  sortEntities,
  trimFormatted,
} from './entities';
import { parseHtml } from './html';
import { parseMarkdown } from './markdown';
import { parseMarkdownV2 } from './markdown-v2';

export * from './entities';
export { detectEntities, detectedEntitiesOf, withDetectedEntities } from './detect';
export { parseHtml } from './html';
export { parseMarkdown } from './markdown';
export { parseMarkdownV2 } from './markdown-v2';

export const PARSE_MODES = ['HTML', 'MarkdownV2', 'Markdown'] as const;
export type ParseMode = (typeof PARSE_MODES)[number];

/** Telegram matches parse_mode case-insensitively; an empty one means plain text. */
export function parseModeOf(value: string): ParseMode | null | undefined {
  if (value === '') return null;
  return PARSE_MODES.find((mode) => mode.toLowerCase() === value.toLowerCase());
}

const PARSERS: Record<ParseMode, (input: string) => FormattedText> = {
  HTML: parseHtml,
  MarkdownV2: parseMarkdownV2,
  Markdown: parseMarkdown,
};

/**
 * Markup as Telegram reads it: plain text and its formatting entities (UTF-16 offsets), trimmed as
 * Telegram trims. Malformed markup throws EntityParseError with Telegram's text.
 */
export function parseFormatted(input: string, mode: ParseMode): FormattedText {
  const parsed = PARSERS[mode](input);
  const { text, entities } = trimFormatted({ text: parsed.text, entities: normalizeEntities(parsed.entities) });
  if (entities.length > MAX_ENTITIES) throw new EntityParseError(`Too many entities: at most ${MAX_ENTITIES}`);
  return { text, entities: sortEntities(entities) };
}

const KNOWN = new Set<string>(ENTITY_TYPES);
const STORED = new Set<string>(FORMATTING_TYPES);

/**
 * Entities given with a text (the `entities` / `caption_entities` parameter): each must be a known
 * type inside the text, a text_link needs a valid url. What is kept is the formatting; commands,
 * mentions, hashtags, URLs and e-mails are found in the text when it is written (detectedEntitiesOf).
 */
export function checkEntities(text: string, given: unknown): MessageEntity[] {
  if (!Array.isArray(given)) throw new EntityParseError('entities must be an array of MessageEntity');
  if (given.length > MAX_ENTITIES) throw new EntityParseError(`Too many entities: at most ${MAX_ENTITIES}`);
  const kept: MessageEntity[] = [];
  given.forEach((raw: unknown, index) => {
    const where = `entity ${index}`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      throw new EntityParseError(`${where} must be an object`);
    const { type, offset, length, url, language } = raw as Record<string, unknown>;
    if (typeof type !== 'string' || !KNOWN.has(type)) throw new EntityParseError(`${where} has an unsupported type`);
    if (
      !Number.isSafeInteger(offset) ||
      !Number.isSafeInteger(length) ||
      (offset as number) < 0 ||
      (length as number) < 1
    ) {
      throw new EntityParseError(`${where} needs an offset of 0 or more and a length of 1 or more`);
    }
    if ((offset as number) + (length as number) > text.length) {
      throw new EntityParseError(`${where} ends after the text (offsets count UTF-16 code units)`);
    }
    if (!STORED.has(type)) return;
    const entity: MessageEntity = {
      type: type as MessageEntity['type'],
      offset: offset as number,
      length: length as number,
    };
    if (type === 'text_link') {
      const normalized = typeof url === 'string' ? normalizeUrl(url) : null;
      if (!normalized) throw new EntityParseError(`${where}: a text_link needs a valid url`);
      entity.url = normalized;
    }
    if (type === 'pre' && language !== undefined && language !== '') {
      if (typeof language !== 'string' || language.length > 64)
        throw new EntityParseError(`${where}: language must be a string of at most 64 characters`);
      entity.language = language;
    }
    kept.push(entity);
  });
  return normalizeEntities(kept);
}
