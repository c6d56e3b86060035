import { ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { DELIVERY_ERROR_CLASSES, DELIVERY_STATUSES, DeliveryErrorClass, DeliveryStatus } from '@app/bot-delivery';
import { Type } from 'class-transformer';
import { IsDateString, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

const BOT_ID = /^[0-9a-f]{24}$/;

/** The time window of the staff routes: when a delivery became a dead letter or was last tried. */
export class WindowQueryDto {
  @ApiPropertyOptional({
    description: 'ISO 8601; deliveries whose last event (dead letter or attempt) is at or after it',
  })
  @IsOptional()
  @IsDateString({ strict: true })
  since?: string;

  @ApiPropertyOptional({ description: 'ISO 8601; deliveries whose last event is before it' })
  @IsOptional()
  @IsDateString({ strict: true })
  until?: string;
}

export class RedriveFilterDto extends WindowQueryDto {
  @ApiPropertyOptional({ description: 'Only this bot (24 hex characters)' })
  @IsOptional()
  @Matches(BOT_ID, { message: 'bot_id must be 24 lowercase hexadecimal characters' })
  bot_id?: string;

  @ApiPropertyOptional({ enum: DELIVERY_ERROR_CLASSES, description: 'Error class of the last attempt' })
  @IsOptional()
  @IsIn(DELIVERY_ERROR_CLASSES)
  error?: DeliveryErrorClass;
}

/** Keyset paging of the staff lists: the cursor of the previous page and a page size. */
export class PageAfterQueryDto {
  @ApiPropertyOptional({ description: '`next_cursor` of the previous page' })
  @IsOptional()
  @IsString()
  cursor?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 50, description: 'Items per page' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  pageSize?: number;
}

export class StaffDeliveriesQueryDto extends IntersectionType(RedriveFilterDto, PageAfterQueryDto) {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES)
  status?: DeliveryStatus;
}

/**
 * The body of a bulk redelivery and of its dry run: which dead letters. One bot (`bot_id`) or, said
 * explicitly, every bot (`all_bots: true`): an empty body is refused rather than meaning every dead
 * letter of the platform.
 */
export class RedriveBodyDto extends RedriveFilterDto {
  @ApiPropertyOptional({
    enum: [true],
    description: 'Every bot: required instead of bot_id, so that no empty filter means the whole platform',
  })
  @IsOptional()
  @IsIn([true], { message: 'all_bots must be true when given' })
  all_bots?: true;

  @ApiPropertyOptional({ enum: ['dead_letter'], description: 'Only dead letters are redriven' })
  @IsOptional()
  @IsIn(['dead_letter'])
  status?: 'dead_letter';
}

export class StartRedriveDto extends RedriveBodyDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 1000, description: 'Dead letters restarted per bot and second' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1000)
  rate_per_bot?: number;
}

export class AuditQueryDto extends PageAfterQueryDto {
  @ApiPropertyOptional({ description: 'Only this action, e.g. redrive.start' })
  @IsOptional()
  @IsString()
  action?: string;
}
