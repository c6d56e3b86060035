import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import { ENTITY_TYPES, EntityType, MAX_ENTITIES, PARSE_MODES, ParseMode } from '@app/telegram-shapes';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';

/** One formatting entity of a text as a send gives it; checked against the text by the service. */
export class MessageEntityDto {
  @ApiProperty({ enum: ENTITY_TYPES })
  @IsIn(ENTITY_TYPES)
  type: EntityType;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'UTF-16 code units from the start of the text' })
  @IsInt()
  @Min(0)
  @Max(65535)
  offset: number;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'UTF-16 code units' })
  @IsInt()
  @Min(1)
  @Max(65535)
  length: number;

  @ApiPropertyOptional({ description: 'text_link: http(s), ftp or tg URL' })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  url?: string;

  @ApiPropertyOptional({ description: 'pre: the programming language' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  language?: string;
}

const PARSE_MODE_DOC: ApiPropertyOptions = {
  enum: PARSE_MODES,
  description:
    "Markup of the text, parsed as Telegram parses it; malformed markup answers VALIDATION `Can't parse entities: …`",
};

const ENTITIES_DOC: ApiPropertyOptions = {
  type: MessageEntityDto,
  isArray: true,
  maxItems: MAX_ENTITIES,
  description:
    'Formatting of the text instead of parse_mode; mention, hashtag, bot_command, url and email are also found by themselves',
};

/** parse_mode of a text or caption. */
export function ParseModeField(): PropertyDecorator {
  return (target, key) => {
    ApiPropertyOptional(PARSE_MODE_DOC)(target, key);
    IsOptional()(target, key);
    IsIn(PARSE_MODES)(target, key);
  };
}

/** entities (or caption_entities) of a text or caption. */
export function EntitiesField(): PropertyDecorator {
  return (target, key) => {
    ApiPropertyOptional(ENTITIES_DOC)(target, key);
    IsOptional()(target, key);
    IsArray()(target, key);
    ArrayMaxSize(MAX_ENTITIES)(target, key);
    IsObject({ each: true })(target, key);
    ValidateNested({ each: true })(target, key);
    Type(() => MessageEntityDto)(target, key);
  };
}

export type { ParseMode };
