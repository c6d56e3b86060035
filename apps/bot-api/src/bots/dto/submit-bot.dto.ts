import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsNotEmpty, IsOptional, IsString, IsUrl, Matches, MaxLength } from 'class-validator';
import { BOT_AVATAR_MAX, BOT_DESCRIPTION_MAX, BOT_SCOPE_PATTERN, BOT_USERNAME_PATTERN, Trim } from './bot-fields';

export class SubmitBotDto {
  @ApiProperty({ maxLength: 100 })
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name: string;

  @ApiPropertyOptional({
    maxLength: 64,
    pattern: BOT_USERNAME_PATTERN.source,
    description:
      'Globally unique, case-insensitive. Without one, approval gives the bot a username derived from its name ' +
      '(`Latte bot` → `latte_bot`, or `latte_2_bot` … when taken), which the developer may change',
  })
  @IsOptional()
  @IsString()
  @Matches(BOT_USERNAME_PATTERN, {
    message: 'username must be 3-64 letters, digits or underscores, starting with a letter',
  })
  username?: string;

  @ApiPropertyOptional({ maxLength: BOT_DESCRIPTION_MAX })
  @IsOptional()
  @IsString()
  @MaxLength(BOT_DESCRIPTION_MAX)
  description?: string;

  @ApiPropertyOptional({ description: 'http(s) URL of the avatar image', maxLength: BOT_AVATAR_MAX })
  @IsOptional()
  @IsString()
  @MaxLength(BOT_AVATAR_MAX)
  @IsUrl({ protocols: ['https', 'http'], require_protocol: true })
  avatar?: string;

  @ApiPropertyOptional({ type: [String], default: ['messages:send', 'messages:receive'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @Matches(BOT_SCOPE_PATTERN, { each: true, message: 'each scope must look like resource:action' })
  scopes?: string[];
}
