import { ApiProperty, ApiPropertyOptional, IntersectionType, PickType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsObject,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { LocationDto } from '../../messages/dto/client-messages.dto';
import { ReplyMarkupView } from '../../messages/dto/message.view';
import { DICE_EMOJI, DiceEmoji } from '../dice';
import { IsReplyMarkup, ReplyMarkup } from '../../messages/dto/reply-markup';
import { CaptionDto, FileIdDto, InputMediaOf, MessageTextDto } from './message-fields.dto';

const REPLY_MARKUP_DOC = { description: 'Inline keyboard under the message', type: ReplyMarkupView };

/** Fields every message-creating operation takes. */
export class SendBaseDto {
  @ApiProperty()
  @IsString()
  @Length(1, 64)
  chat_id: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  reply_to_message_id?: number;

  @ApiPropertyOptional(REPLY_MARKUP_DOC)
  @IsOptional()
  @IsReplyMarkup()
  reply_markup?: ReplyMarkup;
}

export class SendMessageDto extends IntersectionType(SendBaseDto, MessageTextDto) {
  @ApiPropertyOptional({ type: [String], description: 'User ids or usernames' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @Length(1, 128, { each: true })
  mentions?: string[];
}

/** file_id based sends; each operation accepts the media fields of spec 2.3 that apply to it. */
export class SendFileDto extends IntersectionType(SendBaseDto, FileIdDto, CaptionDto) {}

export class SendPhotoDto extends SendFileDto {
  @ApiPropertyOptional({ description: 'pixels; taken from the stored file when omitted' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100000)
  width?: number;

  @ApiPropertyOptional({ description: 'pixels; taken from the stored file when omitted' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100000)
  height?: number;
}

/** sendDocument takes the same fields as sendPhoto (spec 4.2). */
export class SendDocumentDto extends SendPhotoDto {}

export class SendVideoDto extends SendPhotoDto {
  @ApiPropertyOptional({ description: 'seconds; taken from the stored file when omitted' })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(86400)
  duration?: number;
}

export class SendVideoNoteDto extends SendVideoDto {}
export class SendAnimationDto extends SendVideoDto {}

/** Audio metadata carried into Update payloads (spec 2.3: performer and title of audio and voice). */
class AudioTagsDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(128)
  performer?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(128)
  title?: string;
}

export class SendAudioDto extends IntersectionType(SendVideoDto, AudioTagsDto) {}

/** A voice note has a duration and audio tags but, unlike audio, no picture dimensions. */
export class SendVoiceDto extends IntersectionType(
  SendFileDto,
  PickType(SendVideoDto, ['duration'] as const),
  AudioTagsDto,
) {}

export class SendStickerDto extends IntersectionType(SendBaseDto, FileIdDto) {
  @ApiPropertyOptional()
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100000)
  width?: number;

  @ApiPropertyOptional()
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100000)
  height?: number;
}

export class SendLocationDto extends IntersectionType(SendBaseDto, LocationDto) {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @Length(1, 255)
  name?: string;
}

export class SendVenueDto extends IntersectionType(SendBaseDto, LocationDto) {
  @ApiPropertyOptional({ description: 'As in sendLocation: a name for the point; defaults to the title' })
  @IsOptional()
  @IsString()
  @Length(1, 255)
  name?: string;

  @ApiProperty({ description: 'Title of the venue' })
  @IsString()
  @Length(1, 255)
  title: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @Length(1, 500)
  address?: string;
}

export class SendDiceDto extends SendBaseDto {
  @ApiPropertyOptional({ enum: DICE_EMOJI, default: '🎲' })
  @IsOptional()
  @IsIn(DICE_EMOJI)
  emoji?: DiceEmoji;
}

export class SendPollDto extends SendBaseDto {
  @ApiProperty({ maxLength: 300 })
  @IsString()
  @Length(1, 300)
  question: string;

  @ApiProperty({ type: [String], minItems: 2, maxItems: 12 })
  @IsArray()
  @ArrayMinSize(2)
  @ArrayMaxSize(12)
  @IsString({ each: true })
  @Length(1, 100, { each: true })
  options: string[];

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  is_anonymous?: boolean;

  @ApiPropertyOptional({ enum: ['regular', 'quiz'], default: 'regular' })
  @IsOptional()
  @IsIn(['regular', 'quiz'])
  type?: 'regular' | 'quiz';

  @ApiPropertyOptional({ description: 'Required for a quiz: index of the correct option' })
  @IsOptional()
  @IsInt()
  @Min(0)
  correct_option_id?: number;
}

export class SendContactDto extends SendBaseDto {
  @ApiProperty()
  @IsString()
  @Length(1, 32)
  phone_number: string;

  @ApiProperty()
  @IsString()
  @Length(1, 64)
  first_name: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(64)
  last_name?: string;
}

export const MEDIA_GROUP_TYPES = ['photo', 'video', 'document', 'audio'] as const;

/** One item of a media group. */
export class InputMediaDto extends InputMediaOf(MEDIA_GROUP_TYPES) {}

export class SendMediaGroupDto extends SendBaseDto {
  @ApiProperty({ type: [InputMediaDto], minItems: 2, maxItems: 10 })
  @IsArray()
  @ArrayMinSize(2)
  @ArrayMaxSize(10)
  // ValidateNested walks into a nested array as if it were more items: each item must be an object itself.
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => InputMediaDto)
  media: InputMediaDto[];
}

export const CHAT_ACTIONS = [
  'typing',
  'upload_photo',
  'record_video',
  'upload_video',
  'record_voice',
  'upload_voice',
  'upload_document',
  'choose_sticker',
  'find_location',
  'record_video_note',
  'upload_video_note',
] as const;

export class SendChatActionDto {
  @ApiProperty()
  @IsString()
  @Length(1, 64)
  chat_id: string;

  @ApiProperty({ enum: CHAT_ACTIONS })
  @IsIn(CHAT_ACTIONS)
  action: (typeof CHAT_ACTIONS)[number];
}
