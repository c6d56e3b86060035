import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsISO8601,
  IsString,
  Length,
  ValidateIf,
} from 'class-validator';

import { VOUCHER_PERMISSIONS, VoucherPermission } from '../../applications/runtime-route.options';

export class CreateAppTokenDto {
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'POS terminals' })
  @IsString()
  @Length(1, 100)
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  name: string;

  @ApiProperty({
    enum: VOUCHER_PERMISSIONS,
    isArray: true,
    example: ['vouchers:verify', 'vouchers:redeem'],
    description: 'The permissions of spec section 5.4; nothing else can be granted to an application token',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(VOUCHER_PERMISSIONS.length)
  @ArrayUnique()
  @IsIn(VOUCHER_PERMISSIONS, { each: true })
  permissions: VoucherPermission[];

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'ISO 8601; must lie in the future. Omitted or null: the token does not expire.',
  })
  @ValidateIf((_dto, value) => value !== undefined && value !== null)
  @IsISO8601({ strict: true, strictSeparator: true })
  expires_at?: string | null;
}
