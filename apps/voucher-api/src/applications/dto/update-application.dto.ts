import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  Length,
  ValidateIf,
  MaxLength,
} from 'class-validator';
import { MAX_ALLOWED_ORIGINS } from './create-application.dto';
import type { ApplicationStatus } from '../entities/application.entity';
import { IsHostPattern, normaliseHostPatterns } from './host-pattern';

export const APPLICATION_STATUSES: readonly ApplicationStatus[] = ['active', 'disabled'];

export class UpdateApplicationDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @ValidateIf((_dto, value) => value !== undefined)
  @IsString()
  @Length(1, 200)
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  name?: string;

  @ApiPropertyOptional({ type: String, maxLength: 1000, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string | null;

  @ApiPropertyOptional({ type: [String], example: ['*'] })
  @ValidateIf((_dto, value) => value !== undefined)
  @Transform(({ value }) => normaliseHostPatterns(value))
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_ALLOWED_ORIGINS)
  @IsHostPattern({ each: true })
  allowed_origins?: string[];

  @ApiPropertyOptional({
    enum: APPLICATION_STATUSES,
    description: 'disabled stops every token of the application at once',
  })
  @ValidateIf((_dto, value) => value !== undefined)
  @IsIn(APPLICATION_STATUSES)
  status?: ApplicationStatus;
}
