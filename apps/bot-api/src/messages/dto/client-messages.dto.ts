import { PageQueryOf } from '@app/platform';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { EntitiesField, MessageEntityDto } from './message-entity.dto';
import {
  ArrayMaxSize,
  IsArray,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';

export const TEXT_MAX = 4096;
export const CAPTION_MAX = 1024;
/** With parse_mode the limits count the parsed text; the markup itself may be up to four times longer. */
export const TEXT_MARKUP_MAX = 4 * TEXT_MAX;
export const CAPTION_MARKUP_MAX = 4 * CAPTION_MAX;

export class LocationDto {
  @ApiProperty({ minimum: -90, maximum: 90 })
  @IsNumber()
  @Min(-90)
  @Max(90)
  latitude: number;

  @ApiProperty({ minimum: -180, maximum: 180 })
  @IsNumber()
  @Min(-180)
  @Max(180)
  longitude: number;
}

export class PostMessageDto {
  @ApiPropertyOptional({
    maxLength: TEXT_MAX,
    description: 'Text, or the caption (at most 1024) when file_id is given',
  })
  @IsOptional()
  @IsString()
  @Length(1, TEXT_MAX)
  text?: string;

  @EntitiesField()
  entities?: MessageEntityDto[];

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(64)
  file_id?: string;

  @ApiPropertyOptional({ type: LocationDto, description: 'Shares a location instead of text or a file' })
  @IsOptional()
  @ValidateNested()
  @Type(() => LocationDto)
  location?: LocationDto;

  @ApiPropertyOptional()
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  reply_to_message_id?: number;

  @ApiPropertyOptional({ type: [String], description: 'User ids or usernames' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @Length(1, 128, { each: true })
  mentions?: string[];
}

export class EditMessageTextDto {
  @ApiProperty({ maxLength: TEXT_MAX })
  @IsString()
  @Length(1, TEXT_MAX)
  text: string;

  @EntitiesField()
  entities?: MessageEntityDto[];
}

/** A chat shows more than one screen of messages at once, so its pages are larger than the usual 20. */
export const MESSAGES_PAGE_SIZE = 50;

export class ListMessagesQuery extends PageQueryOf(MESSAGES_PAGE_SIZE) {}
