import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, ValidateNested } from 'class-validator';
import { CredentialDto } from './credential.dto';

export class VerifyDto {
  @ApiProperty({ type: CredentialDto })
  @IsObject()
  @ValidateNested()
  @Type(() => CredentialDto)
  credential: CredentialDto;
}
