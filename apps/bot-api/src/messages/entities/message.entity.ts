import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import { bigintNumber } from '../../database/bigint-number';
import type { MessageEntity } from '@app/telegram-shapes';
import type { ReplyMarkup } from '../dto/reply-markup';

export const MESSAGE_KINDS = [
  'text',
  'photo',
  'document',
  'video',
  'audio',
  'voice',
  'video_note',
  'animation',
  'sticker',
  'dice',
  'poll',
  'contact',
  'location',
  'venue',
] as const;

export type MessageKind = (typeof MESSAGE_KINDS)[number];

/** Kind-specific data (spec 2.3): dice, poll, contact, location/venue, media overrides, edit and forward marks. */
export interface MessageMetadata {
  diceEmoji?: string;
  diceValue?: number;
  poll?: {
    question: string;
    options: string[];
    is_anonymous: boolean;
    type: 'regular' | 'quiz';
    correct_option_id?: number;
    /** Set by stopPoll. */
    is_closed?: boolean;
  };
  contact?: { phone_number: string; first_name: string; last_name?: string };
  location?: { latitude: number; longitude: number; name?: string; title?: string; address?: string };
  isVenue?: boolean;
  isEdited?: boolean;
  file?: { width?: number; height?: number; duration?: number; performer?: string; title?: string };
  forwardFrom?: { chat_id: string; message_id: number; from_user_id: string; date: number };
  mediaGroupId?: string;
}

@Entity({ name: 'messages' })
export class Message {
  @PrimaryColumn({ type: 'bigint', generated: 'identity', generatedIdentity: 'ALWAYS', transformer: bigintNumber })
  id: number;

  @Column({ name: 'chat_id', type: 'uuid' })
  chatId: string;

  @Column({ name: 'sender_id', type: 'varchar', length: 128 })
  senderId: string;

  @Column({ type: 'varchar', length: 16 })
  kind: MessageKind;

  /** Message text, or the caption of a media message. */
  @Column({ type: 'text', nullable: true })
  text: string | null;

  /** Formatting of `text` (bold, links, code, …), UTF-16 offsets, as given or parsed from markup. */
  @Column({ type: 'jsonb', default: () => `'[]'` })
  entities: MessageEntity[];

  /**
   * Commands, mentions, hashtags, URLs and e-mails found in `text` when it was written (UTF-16
   * offsets), so that no read looks for them again. Null until they are found: a row written before
   * they were stored, or whose text a writer without them changed, waits for MessageDetectionBackfill.
   */
  @Column({ name: 'detected_entities', type: 'jsonb', nullable: true })
  detectedEntities: MessageEntity[] | null;

  /**
   * The md5 of the text `detectedEntities` were found in (a fingerprint, not a secret): an UPDATE of
   * `text` that leaves it as it was comes from a writer that did not detect, and the database then
   * drops `detectedEntities` (trigger messages_detection_stale).
   */
  @Column({ name: 'detected_text_md5', type: 'uuid', nullable: true })
  detectedTextMd5: string | null;

  @Column({ name: 'file_id', type: 'uuid', nullable: true })
  fileId: string | null;

  @Column({ name: 'reply_to_message_id', type: 'bigint', nullable: true, transformer: bigintNumber })
  replyToMessageId: number | null;

  @Column({ type: 'jsonb', default: () => `'[]'` })
  mentions: string[];

  @Column({ type: 'jsonb', default: () => `'{}'` })
  metadata: MessageMetadata;

  @Column({ name: 'reply_markup', type: 'jsonb', nullable: true })
  replyMarkup: ReplyMarkup | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'edited_at', type: 'timestamptz', nullable: true })
  editedAt: Date | null;

  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;
}
