import { createHash } from 'node:crypto';
import { detectedEntitiesOf, MessageEntity } from '@app/telegram-shapes';
import type { Message } from './entities/message.entity';

/** The columns that hold a message's text, written together whenever the text is. */
export type TextColumns = Pick<Message, 'text' | 'entities' | 'detectedEntities' | 'detectedTextMd5'>;

/**
 * A text as a message stores it: the formatting, and the commands, mentions, hashtags, URLs and
 * e-mails found in it now, once, with the fingerprint of the text they were found in. Every write of
 * a text goes through here; reads only show what it stored.
 */
export function textColumns(text: string | null, entities: MessageEntity[]): TextColumns {
  return {
    text,
    entities,
    detectedEntities: detectedEntitiesOf(text, entities),
    detectedTextMd5: textFingerprint(text),
  };
}

/** PostgreSQL's `md5(text)::uuid` of the text (as UTF-8), so statements can compare it with the stored text. */
export function textFingerprint(text: string | null): string | null {
  if (text === null) return null;
  const hex = createHash('md5').update(text, 'utf8').digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
