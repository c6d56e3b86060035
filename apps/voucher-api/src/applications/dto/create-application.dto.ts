import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsOptional,
  IsString,
  Length,
  ValidateIf,
  MaxLength,
} from 'class-validator';
import { IsHostPattern, normaliseHostPatterns } from './host-pattern';

export const MAX_ALLOWED_ORIGINS = 50;

export class CreateApplicationDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Coffee rewards' })
  @IsString()
  @Length(1, 200)
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  name: string;

  @ApiPropertyOptional({ type: String, maxLength: 1000, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string | null;

  @ApiPropertyOptional({
    type: [String],
    description:
      'Host patterns compared with the Origin host: "*", "shop.example.com" or "*.example.com"; omitted: ["*"]',
    example: ['shop.example.com', '*.example.com'],
  })
  @ValidateIf((_dto, value) => value !== undefined)
  @Transform(({ value }) => normaliseHostPatterns(value))
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_ALLOWED_ORIGINS)
  @IsHostPattern({ each: true })
  allowed_origins?: string[];
}
