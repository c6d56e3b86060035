import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { plainToInstance, Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { BOT_DESCRIPTION_MAX } from '../../bots/dto/bot-fields';

export class VerifyTokenDto {
  @ApiPropertyOptional({ description: 'The bot token to check (sbot_…)' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  token?: string;
}

/** Telegram allows 64 characters for a bot's name; the name shows in every chat, so it cannot be empty. */
export const BOT_NAME_MAX = 64;

export class SetMyNameDto {
  @ApiProperty({ minLength: 1, maxLength: BOT_NAME_MAX })
  @IsString()
  @Length(1, BOT_NAME_MAX)
  @Matches(/\S/, { message: 'name must not be blank' })
  name: string;
}

export class SetMyShortDescriptionDto {
  @ApiPropertyOptional({ maxLength: 120, description: 'Empty or absent removes it' })
  @IsOptional()
  @IsString()
  @MaxLength(120)
  short_description?: string;
}

export class SetMyDescriptionDto {
  @ApiPropertyOptional({ maxLength: BOT_DESCRIPTION_MAX, description: 'Multi-line; empty or absent removes it' })
  @IsOptional()
  @IsString()
  @MaxLength(BOT_DESCRIPTION_MAX)
  description?: string;
}

export const COMMAND_SCOPE_TYPES = [
  'default',
  'all_private_chats',
  'all_group_chats',
  'all_chat_administrators',
  'chat',
  'chat_administrators',
  'chat_member',
] as const;
export type CommandScopeType = (typeof COMMAND_SCOPE_TYPES)[number];

/** Telegram's BotCommandScope: which chats and members a command list applies to. */
export class CommandScopeDto {
  @ApiProperty({ enum: COMMAND_SCOPE_TYPES })
  @IsIn(COMMAND_SCOPE_TYPES)
  type: CommandScopeType;

  @ApiPropertyOptional({ description: 'For chat, chat_administrators and chat_member' })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  chat_id?: string;

  @ApiPropertyOptional({ description: 'For chat_member' })
  @IsOptional()
  @IsString()
  @Length(1, 128)
  user_id?: string;
}

export class BotCommandDto {
  @ApiProperty({ pattern: '^[a-z0-9_]{1,32}$' })
  @IsString()
  @Matches(/^[a-z0-9_]{1,32}$/, { message: 'command must be 1-32 characters of a-z, 0-9 and _' })
  command: string;

  @ApiProperty({ minLength: 1, maxLength: 256 })
  @IsString()
  @Length(1, 256)
  description: string;
}

/** Query strings carry the scope as JSON, as Telegram accepts it. */
const ScopeFromJson = () =>
  Transform(({ obj, key }: { obj: Record<string, unknown>; key: string }) => {
    let value = obj[key];
    if (typeof value === 'string') {
      try {
        value = JSON.parse(value);
      } catch {
        return value;
      }
    }
    return value && typeof value === 'object' && !Array.isArray(value)
      ? plainToInstance(CommandScopeDto, value)
      : value;
  });

export class CommandsSelectorDto {
  @ApiPropertyOptional({ type: CommandScopeDto, description: 'Defaults to {"type":"default"}' })
  @IsOptional()
  @ScopeFromJson()
  @ValidateNested()
  scope?: CommandScopeDto;

  @ApiPropertyOptional({ description: 'Two-letter ISO 639-1 code; empty means every language' })
  @IsOptional()
  @IsString()
  @Matches(/^([a-z]{2})?$/, { message: 'language_code must be a two-letter ISO 639-1 code or empty' })
  language_code?: string;
}

export class SetMyCommandsDto extends CommandsSelectorDto {
  @ApiProperty({ type: [BotCommandDto], maxItems: 100 })
  @IsArray()
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => BotCommandDto)
  commands: BotCommandDto[];
}
