import { Type } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { CAPTION_MARKUP_MAX, CAPTION_MAX, TEXT_MARKUP_MAX, TEXT_MAX } from '../../messages/dto/client-messages.dto';
import { EntitiesField, MessageEntityDto, ParseMode, ParseModeField } from '../../messages/dto/message-entity.dto';

/** The text of a text message and how it is formatted, one block for sendMessage and editMessage. */
export class MessageTextDto {
  @ApiProperty({
    maxLength: TEXT_MARKUP_MAX,
    description: `At most ${TEXT_MAX} characters after parse_mode markup is parsed`,
  })
  @IsString()
  @Length(1, TEXT_MARKUP_MAX)
  text: string;

  @ParseModeField()
  parse_mode?: ParseMode;

  @EntitiesField()
  entities?: MessageEntityDto[];
}

/** A stored file, by the id its upload answered: what a file send or a media item carries. */
export class FileIdDto {
  @ApiProperty()
  @IsString()
  @Length(1, 64)
  file_id: string;
}

/**
 * The caption of a media message and how it is formatted, one block for every send and edit that
 * carries a caption (the file sends, media-group items, editMessageCaption, editMessageMedia).
 */
export class CaptionDto {
  @ApiPropertyOptional({
    maxLength: CAPTION_MARKUP_MAX,
    description: `At most ${CAPTION_MAX} characters after parse_mode markup is parsed`,
  })
  @IsOptional()
  @IsString()
  @MaxLength(CAPTION_MARKUP_MAX)
  caption?: string;

  @ParseModeField()
  parse_mode?: ParseMode;

  @EntitiesField()
  caption_entities?: MessageEntityDto[];
}

/** A media item of a group or of an edit: its kind (one of `types`), its file and its caption. */
export function InputMediaOf<const Kinds extends readonly string[]>(
  types: Kinds,
): Type<{ type: Kinds[number] } & FileIdDto & CaptionDto> {
  class MediaTypeDto {
    @ApiProperty({ enum: types })
    @IsIn(types)
    type: Kinds[number];
  }
  return IntersectionType(MediaTypeDto, FileIdDto, CaptionDto);
}
