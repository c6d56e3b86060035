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

/** The permissions of spec section 5.4; nothing else can be granted to an application token. */
export const APP_TOKEN_PERMISSIONS = [
  'vouchers:read',
  'vouchers:templates:write',
  'vouchers:issue',
  'vouchers:verify',
  'vouchers:redeem',
  'vouchers:reverse',
] as const;

export class CreateAppTokenDto {
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'POS terminals' })
  @IsString()
  @Length(1, 100)
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  name: string;

  @ApiProperty({ enum: APP_TOKEN_PERMISSIONS, isArray: true, example: ['vouchers:verify', 'vouchers:redeem'] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(APP_TOKEN_PERMISSIONS.length)
  @ArrayUnique()
  @IsIn(APP_TOKEN_PERMISSIONS, { each: true })
  permissions: string[];

  @ApiPropertyOptional({
    format: 'date-time',
    nullable: true,
    description: 'ISO 8601; must lie in the future. Omitted or null: the token does not expire.',
  })
  @ValidateIf((_dto, value) => value !== undefined && value !== null)
  @IsISO8601({ strict: true, strictSeparator: true })
  expires_at?: string | null;
}
