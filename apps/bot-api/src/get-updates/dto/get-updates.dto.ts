import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { UPDATE_TYPES } from '../../update-types';

/** Query strings carry lists as repeated keys, a JSON array or a comma-separated value. */
function toList({ value }: { value: unknown }): unknown {
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  if (trimmed.startsWith('[')) {
    try {
      return JSON.parse(trimmed);
    } catch {
      return value;
    }
  }
  return trimmed === '' ? [] : trimmed.split(',').map((part) => part.trim());
}

export class GetUpdatesDto {
  @ApiPropertyOptional({ description: 'Last received update_seq + 1; confirms every Update below it' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  offset?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 50, default: 0, description: 'Long-poll seconds' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(50)
  timeout?: number;

  @ApiPropertyOptional({ type: [String], enum: UPDATE_TYPES, description: 'Remembered until changed' })
  @IsOptional()
  @Transform(toList)
  @IsArray()
  @ArrayMaxSize(UPDATE_TYPES.length)
  @IsIn(UPDATE_TYPES, { each: true })
  allowed_updates?: string[];
}
