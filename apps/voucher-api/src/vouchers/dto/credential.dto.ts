import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsString, Length } from 'class-validator';

export class CredentialDto {
  @ApiProperty({ enum: ['qr_token', 'redeem_code'] })
  @IsIn(['qr_token', 'redeem_code'])
  type: 'qr_token' | 'redeem_code';

  @ApiProperty({ description: 'The scanned value or the code (case, spaces and hyphens ignored)' })
  @IsString()
  @Length(1, 256)
  value: string;
}
