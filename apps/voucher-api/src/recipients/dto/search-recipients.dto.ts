import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsString, Length } from 'class-validator';

export class SearchRecipientsDto {
  @ApiProperty({
    minLength: 2,
    maxLength: 128,
    description: 'Part of a user name (case-insensitive) or a complete user id',
  })
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @Length(2, 128)
  keyword: string;
}
