import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { CAPTION_MAX } from '../../messages/dto/client-messages.dto';
import { ReplyMarkupView } from '../../messages/dto/message.view';
import { IsReplyMarkup, ReplyMarkup } from '../../messages/dto/reply-markup';
import { CaptionDto, InputMediaOf, MessageTextDto } from './message-fields.dto';

/**
 * The buttons of an edited message (editMessage, editMessageCaption, editMessageMedia, stopPoll):
 * omitted keeps them, `null` removes them, an inline keyboard replaces them. The Telegram face sends
 * `null` when its call has no reply_markup, as Telegram removes the keyboard then.
 */
function EditedReplyMarkupField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: ReplyMarkupView,
      nullable: true,
      description: 'Omitted keeps the buttons, null removes them, an inline keyboard replaces them',
    }),
    IsOptional(),
    IsReplyMarkup({ allowNull: true }),
  );
}

/** message_id is unique across chats; chat_id, when given, must be the message's chat. */
export class MessageRefDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @Length(1, 64)
  chat_id?: string;

  @ApiProperty()
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  message_id: number;
}

export class EditMessageDto extends IntersectionType(MessageRefDto, MessageTextDto) {
  @EditedReplyMarkupField()
  reply_markup?: ReplyMarkup | null;
}

/** The caption of the bot's own media message; omitted or empty removes it. */
export class EditMessageCaptionDto extends IntersectionType(MessageRefDto, CaptionDto) {
  // Only the description differs from a send's caption: an edit's absent caption removes the old one.
  @ApiPropertyOptional({
    description: `At most ${CAPTION_MAX} characters after parse_mode markup is parsed; omitted or empty removes the caption`,
  })
  override caption?: string;

  @EditedReplyMarkupField()
  reply_markup?: ReplyMarkup | null;
}

export class DeleteMessageDto extends MessageRefDto {}

export class DeleteMessagesDto {
  @ApiProperty()
  @IsString()
  @Length(1, 64)
  chat_id: string;

  @ApiProperty({
    type: [Number],
    minItems: 1,
    maxItems: 100,
    description: 'Messages of this bot; unknown ones are skipped',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(Number.MAX_SAFE_INTEGER, { each: true })
  message_ids: number[];
}

/** Closes a poll of this bot: nobody can answer it any more. */
export class StopPollDto extends MessageRefDto {
  @EditedReplyMarkupField()
  reply_markup?: ReplyMarkup | null;
}

export const EDITABLE_MEDIA_TYPES = ['photo', 'video', 'document', 'audio', 'animation'] as const;

/** The new file of a media message, and its caption (none when omitted). */
export class InputMediaEditDto extends InputMediaOf(EDITABLE_MEDIA_TYPES) {}

/** Replaces the file (and caption) of a media message of this bot. */
export class EditMessageMediaDto extends MessageRefDto {
  @ApiProperty({ type: InputMediaEditDto })
  @IsObject()
  @ValidateNested()
  @Type(() => InputMediaEditDto)
  media: InputMediaEditDto;

  @EditedReplyMarkupField()
  reply_markup?: ReplyMarkup | null;
}

export class EditMessageReplyMarkupDto extends MessageRefDto {
  @ApiPropertyOptional({ type: ReplyMarkupView, nullable: true, description: 'null or omitted clears the buttons' })
  @IsOptional()
  @IsReplyMarkup({ allowNull: true })
  reply_markup?: ReplyMarkup | null;
}

export class ForwardMessageDto {
  @ApiProperty({ description: 'Target chat' })
  @IsString()
  @Length(1, 64)
  chat_id: string;

  @ApiProperty({ description: 'Chat the message is taken from' })
  @IsString()
  @Length(1, 64)
  from_chat_id: string;

  @ApiProperty()
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  message_id: number;
}

export class CopyMessageDto extends ForwardMessageDto {}
