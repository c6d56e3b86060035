import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUrl, Length, MaxLength, Min, Max } from 'class-validator';

export class ChatRefDto {
  @ApiProperty()
  @IsString()
  @Length(1, 64)
  chat_id: string;
}

export class ChatMemberRefDto extends ChatRefDto {
  @ApiProperty()
  @IsString()
  @Length(1, 128)
  user_id: string;
}

export class BanChatMemberDto extends ChatMemberRefDto {
  @ApiPropertyOptional({ maxLength: 500 })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  reason?: string;
}

export class SetChatTitleDto extends ChatRefDto {
  @ApiProperty({ maxLength: 255 })
  @IsString()
  @Length(1, 255)
  title: string;
}

export class SetChatDescriptionDto extends ChatRefDto {
  @ApiProperty({ maxLength: 255, description: 'An empty string removes the description' })
  @IsString()
  @MaxLength(255)
  description: string;
}

export class SetChatPhotoDto extends ChatRefDto {
  @ApiProperty({ description: 'HTTPS URL of the picture' })
  @IsUrl({ protocols: ['https'], require_protocol: true }, { message: 'photo must be an HTTPS URL' })
  @MaxLength(2048)
  photo: string;
}

export class PinMessageDto extends ChatRefDto {
  @ApiProperty()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  message_id: number;
}

export class UnpinMessageDto extends ChatRefDto {
  @ApiPropertyOptional({ description: 'Unpins only if this is the pinned message; omitted unpins the current one' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  message_id?: number;
}

export class UserRefDto {
  @ApiProperty()
  @IsString()
  @Length(1, 128)
  user_id: string;
}
