import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DELIVERY_STATUSES, DeliveryStatus } from '@app/bot-delivery';
import { IsDateString, IsIn, IsOptional } from 'class-validator';
import { PageQueryDto } from '@app/platform';

export class ListDeliveriesQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES, description: 'Only deliveries in this status, e.g. dead_letter' })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES)
  status?: DeliveryStatus;
}

export class BulkRedeliverDto {
  @ApiProperty({ enum: ['dead_letter'], description: 'Only dead letters are redelivered in bulk' })
  @IsIn(['dead_letter'])
  status: 'dead_letter';

  @ApiPropertyOptional({ description: 'ISO 8601; dead letters with dead_letter_at at or after it' })
  @IsOptional()
  @IsDateString({ strict: true })
  since?: string;

  @ApiPropertyOptional({ description: 'ISO 8601; dead letters with dead_letter_at before it' })
  @IsOptional()
  @IsDateString({ strict: true })
  until?: string;
}
