import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { CALLBACK_DATA_MAX_BYTES } from '../../messages/dto/reply-markup';
import { INLINE_RESULTS_MAX } from '../inline-results';

/** A click on an inline keyboard button: which message and which button (by its callback_data). */
export class CreateCallbackQueryDto {
  @ApiProperty({ format: 'uuid' })
  @IsString()
  @Length(1, 64)
  chat_id: string;

  @ApiProperty({ type: 'integer', minimum: 1 })
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  message_id: number;

  @ApiProperty({ description: `The button's callback_data, 1 to ${CALLBACK_DATA_MAX_BYTES} bytes` })
  @IsString()
  @Length(1, CALLBACK_DATA_MAX_BYTES)
  data: string;
}

export class AnswerCallbackQueryDto {
  @ApiProperty({ format: 'uuid', description: 'The `id` of the callback_query Update' })
  @IsString()
  @Length(1, 64)
  callback_query_id: string;

  @ApiPropertyOptional({ maxLength: 200, description: 'Shown to the user as a notification or alert' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  text?: string;

  @ApiPropertyOptional({ default: false, description: 'An alert the user dismisses instead of a notification' })
  @IsOptional()
  @IsBoolean()
  show_alert?: boolean;

  @ApiPropertyOptional({ description: 'An HTTPS URL the app opens' })
  @IsOptional()
  @IsUrl({ protocols: ['https'], require_protocol: true }, { message: 'url must be an HTTPS URL' })
  @MaxLength(2048)
  url?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 3600,
    default: 0,
    description: 'Seconds the app may reuse the answer',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(3600)
  cache_time?: number;
}

export class CreateInlineQueryDto {
  @ApiProperty({ description: "The bot's @username; the leading @ is optional", maxLength: 65 })
  @IsString()
  @Matches(/^@?[A-Za-z0-9_]{1,64}$/, { message: 'bot_username must be a bot username' })
  bot_username: string;

  @ApiProperty({ maxLength: 256, description: 'What the user typed after the username (may be empty)' })
  @IsString()
  @MaxLength(256)
  query: string;

  @ApiPropertyOptional({ maxLength: 64, description: 'The next_offset of the previous answer, for more results' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  offset?: string;

  @ApiPropertyOptional({
    format: 'uuid',
    description: "The chat the user types in (they must be an active member); sets the Update's chat_type",
  })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  chat_id?: string;
}

export class AnswerInlineQueryDto {
  @ApiProperty({ format: 'uuid', description: 'The `id` of the inline_query Update' })
  @IsString()
  @Length(1, 64)
  inline_query_id: string;

  @ApiProperty({
    description:
      `At most ${INLINE_RESULTS_MAX} results, unique ids; only type \`article\` with an InputTextMessageContent ` +
      '(`{ message_text, parse_mode? }`): see InlineQueryResultArticle',
    type: 'array',
    items: { $ref: '#/components/schemas/InlineQueryResultArticle' },
  })
  @IsArray()
  @ArrayMaxSize(INLINE_RESULTS_MAX)
  results: unknown[];

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 86400, default: 300 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(86400)
  cache_time?: number;

  @ApiPropertyOptional({ default: false, description: 'The results are for this user only' })
  @IsOptional()
  @IsBoolean()
  is_personal?: boolean;

  @ApiPropertyOptional({ maxLength: 64, description: 'Offset the app sends with the next query for more results' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  next_offset?: string;
}
