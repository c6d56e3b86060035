import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsISO8601, IsObject, IsOptional, IsString, Length, ValidateNested } from 'class-validator';
import { CredentialDto } from '../../vouchers/dto/credential.dto';

export class RedeemDto {
  @ApiProperty({ type: CredentialDto })
  @IsObject()
  @ValidateNested()
  @Type(() => CredentialDto)
  credential: CredentialDto;

  @ApiProperty({ description: "The caller's order or transaction number" })
  @IsString()
  @Length(1, 128)
  external_order_id: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @Length(1, 128)
  store_id?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @Length(1, 128)
  operator_id?: string;

  @ApiPropertyOptional({ description: 'ISO 8601 business time; defaults to the server time' })
  @IsOptional()
  @IsISO8601({ strict: true })
  occurred_at?: string;
}
