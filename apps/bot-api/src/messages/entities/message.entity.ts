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

  /** Formatting of `text` (bold, links, code, …), UTF-16 offsets; detected entities are not stored. */
  @Column({ type: 'jsonb', default: () => `'[]'` })
  entities: MessageEntity[];

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
