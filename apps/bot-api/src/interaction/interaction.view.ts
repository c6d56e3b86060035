import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { ChatIdentityView } from '../chats/dto/chat.view';
import { UserView } from '../users/user.view';
import { PARSE_MODES } from './inline-results';
import type { QueryStatus } from './interaction-queries.store';

const QUERY_STATUSES: QueryStatus[] = ['pending', 'answered', 'expired'];

export class CreatedQueryView {
  @ApiProperty({ format: 'uuid', description: 'The query id; read its answer with GET on the same path' })
  id: string;
}

/** The message whose button was clicked. */
export class CallbackMessageView {
  @ApiProperty({ type: 'integer' })
  message_id: number;

  @ApiProperty({ type: ChatIdentityView })
  chat: ChatIdentityView;
}

/** `callback_query` of the Update (spec 6.2). */
export class CallbackQueryUpdateView {
  @ApiProperty({ format: 'uuid', description: 'Answer it with answerCallbackQuery' })
  id: string;

  @ApiProperty({ type: UserView, description: 'Who clicked' })
  from: UserView;

  @ApiProperty({ type: CallbackMessageView })
  message: CallbackMessageView;

  @ApiProperty({ description: "The button's callback_data" })
  data: string;

  @ApiProperty({ description: 'Opaque, the same for every click in this chat on this bot; not the chat id' })
  chat_instance: string;
}

/** `inline_query` of the Update (spec 6.2). */
export class InlineQueryUpdateView {
  @ApiProperty({ format: 'uuid', description: 'Answer it with answerInlineQuery' })
  id: string;

  @ApiProperty({ type: UserView, description: 'Who typed' })
  from: UserView;

  @ApiProperty({ description: 'What the user typed after the bot username' })
  query: string;

  @ApiProperty({ description: 'The offset the app asked for (the previous next_offset), or empty' })
  offset: string;

  @ApiProperty({
    enum: ['sender', 'private', 'group'],
    description: 'The chat the user typed in: its type, or `sender` when no chat was named',
  })
  chat_type: 'sender' | 'private' | 'group';
}

/** The bot's answer to a click, as the clicking user reads it (documented inline in CallbackQueryStateView). */
export interface CallbackAnswerView {
  text: string | null;
  show_alert: boolean;
  url: string | null;
  cache_time: number;
}

/** A callback query as the user who clicked reads it. */
export class CallbackQueryStateView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: QUERY_STATUSES, description: 'expired: unanswered after the answer window' })
  status: QueryStatus;

  // Written out rather than a $ref: OpenAPI 3.0 cannot mark a referenced object nullable.
  @ApiProperty({
    type: 'object',
    nullable: true,
    description: 'null until answered',
    required: ['text', 'show_alert', 'url', 'cache_time'],
    properties: {
      text: { type: 'string', nullable: true },
      show_alert: { type: 'boolean' },
      url: { type: 'string', nullable: true },
      cache_time: { type: 'integer', description: 'Seconds the app may reuse the answer' },
    },
  })
  answer: CallbackAnswerView | null;
}

export class InputTextMessageContentView {
  @ApiProperty({ minLength: 1, maxLength: 4096 })
  message_text: string;

  @ApiPropertyOptional({ enum: PARSE_MODES })
  parse_mode?: (typeof PARSE_MODES)[number];
}

/** The only result type of answerInlineQuery. */
export class InlineQueryResultArticle {
  @ApiProperty({ enum: ['article'] })
  type: 'article';

  @ApiProperty({ description: '1 to 64 bytes, unique among the results' })
  id: string;

  @ApiProperty({ maxLength: 256 })
  title: string;

  @ApiProperty({ type: InputTextMessageContentView })
  input_message_content: InputTextMessageContentView;

  @ApiPropertyOptional({ maxLength: 512 })
  description?: string;

  @ApiPropertyOptional({ description: 'HTTPS URL' })
  url?: string;

  @ApiPropertyOptional({ description: 'HTTPS URL' })
  thumbnail_url?: string;
}

/** The bot's answer to an inline query (documented inline in InlineQueryStateView). */
export interface InlineAnswerView {
  results: InlineQueryResultArticle[];
  cache_time: number;
  is_personal: boolean;
  next_offset: string;
}

/** An inline query as the user who typed it reads it. */
@ApiExtraModels(InlineQueryResultArticle)
export class InlineQueryStateView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: QUERY_STATUSES, description: 'expired: unanswered after the answer window' })
  status: QueryStatus;

  @ApiProperty()
  query: string;

  @ApiProperty()
  offset: string;

  @ApiProperty({
    type: 'object',
    nullable: true,
    description: 'null until answered',
    required: ['results', 'cache_time', 'is_personal', 'next_offset'],
    properties: {
      results: { type: 'array', items: { $ref: getSchemaPath(InlineQueryResultArticle) } },
      cache_time: { type: 'integer' },
      is_personal: { type: 'boolean' },
      next_offset: {
        type: 'string',
        description: 'Send it as `offset` of the next query for more results; empty when there are none',
      },
    },
  })
  answer: InlineAnswerView | null;
}
