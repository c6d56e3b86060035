import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';

export class RejectTemplateDto {
  @ApiProperty({ description: 'Why the template was rejected; shown to the application' })
  @IsString()
  @Length(1, 1000)
  reason: string;
}
