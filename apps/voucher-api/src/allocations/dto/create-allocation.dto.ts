import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsString, IsUUID, Length, Matches, Max, Min } from 'class-validator';

export const MAX_ALLOCATION_QUANTITY = 10_000;

export class CreateAllocationDto {
  @ApiProperty({ format: 'uuid', description: 'An active template of this application' })
  @IsUUID()
  templateId: string;

  @ApiProperty({ maxLength: 128, description: 'The sender whose backpack receives the stock' })
  @IsString()
  @Length(1, 128)
  recipientUserId: string;

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    maximum: MAX_ALLOCATION_QUANTITY,
    description: 'Not above the remaining stock',
  })
  @IsInt()
  @Min(1)
  @Max(MAX_ALLOCATION_QUANTITY)
  quantity: number;

  @ApiProperty({
    minLength: 1,
    maxLength: 255,
    description: 'Unique request id; a retry after a network error keeps it and the same parameters',
  })
  @IsString()
  @Length(1, 255)
  @Matches(/^[\x20-\x7e]+$/, { message: 'idempotencyKey must be printable ASCII' })
  idempotencyKey: string;
}
