import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsObject, ValidateNested } from 'class-validator';

export class FeaturesDto {
  @ApiProperty()
  @IsBoolean()
  vouchers: boolean;
}

export class UpdateApplicationFeaturesDto {
  @ApiProperty({ type: FeaturesDto })
  @IsObject()
  @ValidateNested()
  @Type(() => FeaturesDto)
  features: FeaturesDto;
}
