import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { BOT_AVATAR_MAX, BOT_DESCRIPTION_MAX, BOT_USERNAME_PATTERN, Trim } from './bot-fields';
import { RateLimitsDto } from './rate-limits.dto';

/** Developer changes after approval. `null` clears an optional field; an absent field stays as it is. */
export class UpdateBotDto {
  @ApiPropertyOptional({ maxLength: 100 })
  @ValidateIf((o: UpdateBotDto) => o.name !== undefined)
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name?: string;

  @ApiPropertyOptional({
    maxLength: 64,
    description: 'Another @username, unique; an approved bot always has one, so it cannot be removed',
  })
  @ValidateIf((o: UpdateBotDto) => o.username !== undefined)
  @IsString({ message: 'username must be a string: an approved bot always has a username' })
  @Matches(BOT_USERNAME_PATTERN, {
    message: 'username must be 3-64 letters, digits or underscores, starting with a letter',
  })
  username?: string;

  @ApiPropertyOptional({ type: String, maxLength: BOT_DESCRIPTION_MAX, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(BOT_DESCRIPTION_MAX)
  description?: string | null;

  @ApiPropertyOptional({ type: String, maxLength: 120, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(120)
  short_description?: string | null;

  @ApiPropertyOptional({ type: String, maxLength: BOT_AVATAR_MAX, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(BOT_AVATAR_MAX)
  @IsUrl({ protocols: ['https', 'http'], require_protocol: true })
  avatar?: string | null;

  @ApiPropertyOptional()
  @ValidateIf((o: UpdateBotDto) => o.supports_inline_queries !== undefined)
  @IsBoolean()
  supports_inline_queries?: boolean;

  @ApiPropertyOptional({
    description:
      'Self-healing dead letters (off by default): once the webhook answers 2xx again, every dead letter is ' +
      'redelivered automatically, once, in update order and at the redrive pace',
  })
  @ValidateIf((o: UpdateBotDto) => o.auto_redeliver_dead_letters !== undefined)
  @IsBoolean()
  auto_redeliver_dead_letters?: boolean;

  @ApiPropertyOptional({
    type: RateLimitsDto,
    nullable: true,
    description: 'Replaces the bot quotas; each value at most the global default; null restores the defaults',
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => RateLimitsDto)
  rate_limits?: RateLimitsDto | null;
}
