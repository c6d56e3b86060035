import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { PageQueryDto } from '@app/platform';
import { Trim } from '../../bots/dto/bot-fields';
import { RateLimitsDto } from '../../bots/dto/rate-limits.dto';
import { BOT_STATUSES, BotStatus, REVIEW_STATUSES, ReviewStatus } from '../../bots/entities/bot.entity';

export class AdminBotsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: REVIEW_STATUSES })
  @IsOptional()
  @IsIn(REVIEW_STATUSES)
  review_status?: ReviewStatus;
}

export class RejectBotDto {
  @ApiProperty({ maxLength: 1000 })
  @Trim()
  @IsString()
  @IsNotEmpty()
  @MaxLength(1000)
  reason: string;
}

export class AdminUpdateBotDto {
  @ApiPropertyOptional({ enum: BOT_STATUSES })
  @ValidateIf((o: AdminUpdateBotDto) => o.status !== undefined)
  @IsIn(BOT_STATUSES)
  status?: BotStatus;

  @ApiPropertyOptional()
  @ValidateIf((o: AdminUpdateBotDto) => o.virtual_members_enabled !== undefined)
  @IsBoolean()
  virtual_members_enabled?: boolean;

  @ApiPropertyOptional({
    type: RateLimitsDto,
    nullable: true,
    description: 'Any positive values; null restores the defaults',
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => RateLimitsDto)
  rate_limits?: RateLimitsDto | null;
}
