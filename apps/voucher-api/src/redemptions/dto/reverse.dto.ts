import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length } from 'class-validator';

export class ReverseDto {
  @ApiPropertyOptional({ description: 'Why the redemption is reversed' })
  @IsOptional()
  @IsString()
  @Length(1, 1000)
  reason?: string;

  @ApiPropertyOptional({ description: 'Operator number' })
  @IsOptional()
  @IsString()
  @Length(1, 128)
  operator_id?: string;
}
