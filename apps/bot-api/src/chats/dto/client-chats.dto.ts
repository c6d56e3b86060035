import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';

export class CreateGroupDto {
  @ApiProperty({ enum: ['group'], description: 'Only groups are created here; private chats have their own route.' })
  @IsIn(['group'])
  type: 'group';

  @ApiProperty({ maxLength: 255 })
  @IsString()
  @Length(1, 255)
  title: string;

  @ApiPropertyOptional({
    type: [String],
    description: 'User ids to add as members; a bot is added by its system_user_id.',
    default: [],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @MaxLength(128, { each: true })
  member_ids?: string[];
}

export class OpenPrivateChatDto {
  @ApiProperty({ description: '24 lowercase hexadecimal characters' })
  @IsString()
  @Matches(/^[0-9a-f]{24}$/, { message: 'bot_id must be 24 lowercase hexadecimal characters' })
  bot_id: string;
}

export class MemberRefDto {
  @ApiProperty()
  @IsString()
  @Length(1, 128)
  user_id: string;
}

export class MemberRoleDto {
  @ApiProperty({ enum: ['administrator', 'member'] })
  @IsIn(['administrator', 'member'])
  role: 'administrator' | 'member';
}
