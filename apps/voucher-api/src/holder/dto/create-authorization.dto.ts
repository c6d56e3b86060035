import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsUUID } from 'class-validator';

export class CreateAuthorizationDto {
  @ApiProperty({ format: 'uuid', description: 'The application allowed to issue vouchers to the caller' })
  @Transform(({ value }) => (typeof value === 'string' ? value.toLowerCase() : value))
  @IsUUID()
  application_id: string;
}
