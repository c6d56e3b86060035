import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

export class RateLimitsDto {
  @ApiPropertyOptional({ minimum: 1, description: 'Sends per second; unset means the global default' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000_000)
  send_per_sec?: number;

  @ApiPropertyOptional({ minimum: 1, description: 'Sends per minute; unset means the global default' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000_000)
  send_per_min?: number;

  @ApiPropertyOptional({ minimum: 1, description: 'Sends per day; unset means the global default' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000_000)
  send_per_day?: number;
}
