import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath, PickType } from '@nestjs/swagger';
import { PageOf } from '@app/platform';
import { ChatRefView } from '../../chats/dto/chat.view';
import { FileInfoView } from '../../files/dto/file.view';
import { UserView } from '../../users/user.view';
import { ENTITY_TYPES, EntityType } from '@app/telegram-shapes';
import { MESSAGE_KINDS, MessageKind } from '../entities/message.entity';

/**
 * Telegram's MessageEntity: a span of the text (offsets and lengths in UTF-16 code units) and how it
 * is formatted. mention, hashtag, bot_command, url and email are found in the text; the others are
 * given with the send (`entities`) or parsed from its `parse_mode` markup.
 */
export class MessageEntityView {
  @ApiProperty({ enum: ENTITY_TYPES })
  type: EntityType;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'UTF-16 code units from the start of the text' })
  offset: number;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'UTF-16 code units' })
  length: number;

  @ApiPropertyOptional({ description: 'text_link: the URL it opens' })
  url?: string;

  @ApiPropertyOptional({ description: 'pre: the programming language, when given' })
  language?: string;
}

/**
 * The file block of spec 2.3: the stored file's identity as getFile shows it, and per-message values
 * that win over the stored file's metadata.
 */
export class FileView extends PickType(FileInfoView, ['file_id', 'file_name', 'mime_type', 'file_size'] as const) {
  @ApiProperty({ type: String, nullable: true, description: 'Temporary download URL; null until files are served' })
  url: string | null;

  @ApiProperty({ type: String, nullable: true })
  thumbnail_url: string | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Pixels' })
  width: number | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Pixels' })
  height: number | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Seconds' })
  duration: number | null;

  @ApiPropertyOptional({ description: 'Audio and voice only, when given' })
  performer?: string;

  @ApiPropertyOptional({ description: 'Audio and voice only, when given' })
  title?: string;
}

export class PointView {
  @ApiProperty()
  latitude: number;

  @ApiProperty()
  longitude: number;
}

export class LocationView extends PointView {
  @ApiPropertyOptional({ description: 'Given with sendLocation' })
  name?: string;
}

export class VenueView {
  @ApiProperty({ type: PointView })
  location: PointView;

  @ApiPropertyOptional()
  title?: string;

  @ApiProperty({ type: String, nullable: true })
  address: string | null;
}

export class DiceView {
  @ApiProperty()
  emoji: string;

  @ApiProperty({ type: 'integer', description: 'Rolled by the server' })
  value: number;
}

export class PollOptionView {
  @ApiProperty()
  text: string;

  @ApiProperty({ type: 'integer' })
  voter_count: number;
}

export const POLL_TYPES = ['regular', 'quiz'] as const;

/** What a poll's view and its stored metadata share; they differ in how options are given. */
class PollFieldsView {
  @ApiProperty()
  question: string;

  @ApiProperty()
  is_anonymous: boolean;

  @ApiProperty({ enum: POLL_TYPES })
  type: (typeof POLL_TYPES)[number];

  @ApiPropertyOptional({ type: 'integer', description: 'Quizzes only: index of the correct option' })
  correct_option_id?: number;
}

export class PollView extends PollFieldsView {
  @ApiProperty({ description: 'true once the bot stopped the poll (stopPoll)' })
  is_closed: boolean;

  @ApiProperty({ type: [PollOptionView] })
  options: PollOptionView[];
}

export class ContactView {
  @ApiProperty()
  phone_number: string;

  @ApiProperty()
  first_name: string;

  @ApiPropertyOptional()
  last_name?: string;
}

/** Where a forwarded message came from. */
export class ForwardFromView {
  @ApiProperty({ format: 'uuid' })
  chat_id: string;

  @ApiProperty({ type: 'integer' })
  message_id: number;

  @ApiProperty()
  from_user_id: string;

  @ApiProperty({ type: 'integer', description: 'Unix seconds of the original message' })
  date: number;
}

export class InlineKeyboardButtonView {
  @ApiProperty({ minLength: 1, maxLength: 128 })
  text: string;

  @ApiPropertyOptional({ description: '1 to 64 bytes, sent back in callback_query; exactly one of callback_data, url' })
  callback_data?: string;

  @ApiPropertyOptional({ description: 'http(s) URL the button opens' })
  url?: string;
}

/** `{ inline_keyboard: [[{ text, callback_data? , url? }]] }`. */
@ApiExtraModels(InlineKeyboardButtonView)
export class ReplyMarkupView {
  @ApiProperty({
    type: 'array',
    items: { type: 'array', items: { $ref: getSchemaPath(InlineKeyboardButtonView) } },
    description: 'Rows of buttons',
  })
  inline_keyboard: InlineKeyboardButtonView[][];
}

export class PollMetadataView extends PollFieldsView {
  @ApiPropertyOptional({ description: 'Set by stopPoll' })
  is_closed?: boolean;

  @ApiProperty({ type: [String] })
  options: string[];
}

export class LocationMetadataView extends PointView {
  @ApiPropertyOptional({ description: 'sendLocation name; for venues the name given, else the title' })
  name?: string;

  @ApiPropertyOptional({ description: 'Venues: the title' })
  title?: string;

  @ApiPropertyOptional()
  address?: string;
}

export class FileMetadataView {
  @ApiPropertyOptional({ type: 'integer' })
  width?: number;

  @ApiPropertyOptional({ type: 'integer' })
  height?: number;

  @ApiPropertyOptional({ type: 'integer' })
  duration?: number;

  @ApiPropertyOptional()
  performer?: string;

  @ApiPropertyOptional()
  title?: string;
}

/** Kind-specific data as stored (spec 2.3: metadata.diceEmoji, metadata.isEdited, …). */
export class MessageMetadataView {
  @ApiPropertyOptional()
  diceEmoji?: string;

  @ApiPropertyOptional({ type: 'integer' })
  diceValue?: number;

  @ApiPropertyOptional({ type: PollMetadataView })
  poll?: PollMetadataView;

  @ApiPropertyOptional({ type: ContactView })
  contact?: ContactView;

  @ApiPropertyOptional({ type: LocationMetadataView })
  location?: LocationMetadataView;

  @ApiPropertyOptional({ description: 'true for venue messages' })
  isVenue?: boolean;

  @ApiPropertyOptional({ description: 'Set after a successful edit; clients show an edited label' })
  isEdited?: boolean;

  @ApiPropertyOptional({ type: FileMetadataView, description: 'Media values given with the send' })
  file?: FileMetadataView;

  @ApiPropertyOptional({ type: ForwardFromView })
  forwardFrom?: ForwardFromView;

  @ApiPropertyOptional()
  mediaGroupId?: string;
}

/**
 * The one message shape of send results, client message lists and message Updates: the sent-message
 * fields of spec 2.3 plus the blocks of its kind; a block that does not apply is absent.
 */
export class MessageView {
  @ApiProperty({ type: 'integer' })
  message_id: number;

  @ApiProperty({ type: ChatRefView })
  chat: ChatRefView;

  @ApiProperty({ type: UserView })
  from: UserView;

  @ApiProperty({ type: 'integer', description: 'Unix seconds' })
  date: number;

  @ApiProperty({ enum: MESSAGE_KINDS })
  kind: MessageKind;

  @ApiProperty({ type: String, nullable: true, description: 'The text, or the caption of a media message' })
  text: string | null;

  @ApiPropertyOptional({ type: [MessageEntityView], description: 'Formatting of text; absent when there is none' })
  entities?: MessageEntityView[];

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Media kinds: the caption' })
  caption?: string | null;

  @ApiPropertyOptional({ type: [MessageEntityView], description: 'Media kinds: the formatting of the caption' })
  caption_entities?: MessageEntityView[];

  @ApiPropertyOptional({ type: FileView })
  file?: FileView;

  @ApiPropertyOptional({ type: LocationView })
  location?: LocationView;

  @ApiPropertyOptional({ type: VenueView })
  venue?: VenueView;

  @ApiPropertyOptional({ type: DiceView })
  dice?: DiceView;

  @ApiPropertyOptional({ type: PollView })
  poll?: PollView;

  @ApiPropertyOptional({ type: ContactView })
  contact?: ContactView;

  @ApiPropertyOptional({ type: 'integer' })
  reply_to_message_id?: number;

  @ApiPropertyOptional({
    type: () => MessageView,
    description: 'The message replied to, one level deep (it carries no reply_to_message); absent once it is deleted',
  })
  reply_to_message?: MessageView;

  @ApiPropertyOptional({ type: [String], description: 'User ids or usernames' })
  mentions?: string[];

  @ApiPropertyOptional({ type: ReplyMarkupView })
  reply_markup?: ReplyMarkupView;

  @ApiPropertyOptional({ type: ForwardFromView })
  forward_from?: ForwardFromView;

  @ApiPropertyOptional()
  media_group_id?: string;

  @ApiPropertyOptional({ type: 'integer', description: 'Unix seconds of the last edit' })
  edit_date?: number;

  @ApiProperty({ type: MessageMetadataView })
  metadata: MessageMetadataView;
}

/** A "typing…"-style action currently shown in a chat. */
export class ChatActionView {
  @ApiProperty()
  user_id: string;

  @ApiProperty({ example: 'typing' })
  action: string;

  @ApiProperty({ type: 'integer', description: 'Unix milliseconds at which it stops showing' })
  expires_at_ms: number;
}

/** A page of a chat's messages, newest first, with the chat actions showing now. */
export class MessageListView extends PageOf(MessageView) {
  @ApiProperty({ type: [ChatActionView] })
  chat_actions: ChatActionView[];
}

export class DeletedMessageView {
  @ApiProperty({ type: 'integer' })
  message_id: number;

  @ApiProperty({ enum: [true] })
  deleted: true;
}

export class ReceiptView {
  @ApiProperty({ type: 'integer' })
  message_id: number;

  @ApiProperty({ enum: ['read', 'delivered'] })
  status: 'read' | 'delivered';
}
