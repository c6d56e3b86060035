import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Length, Min, Max, MaxLength } from 'class-validator';
import { CAPTION_MARKUP_MAX, CAPTION_MAX, TEXT_MARKUP_MAX, TEXT_MAX } from '../../messages/dto/client-messages.dto';
import { EntitiesField, MessageEntityDto, ParseMode, ParseModeField } from '../../messages/dto/message-entity.dto';
import { ReplyMarkupView } from '../../messages/dto/message.view';
import { IsReplyMarkup, ReplyMarkup } from './reply-markup';

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

export class EditMessageDto extends MessageRefDto {
  @ApiProperty({ maxLength: TEXT_MARKUP_MAX, description: `At most ${TEXT_MAX} characters after parse_mode markup is parsed` })
  @IsString()
  @Length(1, TEXT_MARKUP_MAX)
  text: string;

  @ParseModeField()
  parse_mode?: ParseMode;

  @EntitiesField()
  entities?: MessageEntityDto[];

  @ApiPropertyOptional({ type: ReplyMarkupView })
  @IsOptional()
  @IsReplyMarkup()
  reply_markup?: ReplyMarkup;
}

/** The caption of the bot's own media message; omitted or empty removes it. */
export class EditMessageCaptionDto extends MessageRefDto {
  @ApiPropertyOptional({
    maxLength: CAPTION_MARKUP_MAX,
    description: `At most ${CAPTION_MAX} characters after parse_mode markup is parsed; omitted or empty removes the caption`,
  })
  @IsOptional()
  @IsString()
  @MaxLength(CAPTION_MARKUP_MAX)
  caption?: string;

  @ParseModeField()
  parse_mode?: ParseMode;

  @EntitiesField()
  caption_entities?: MessageEntityDto[];

  @ApiPropertyOptional({ type: ReplyMarkupView })
  @IsOptional()
  @IsReplyMarkup()
  reply_markup?: ReplyMarkup;
}

export class DeleteMessageDto extends MessageRefDto {}

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
