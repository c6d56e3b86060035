import { ApiProperty } from '@nestjs/swagger';
import { Equals, IsString, Length } from 'class-validator';
import { PageQueryDto } from '@app/platform';

export const VIRTUAL_MEMBER_TEXT_MAX = 1000;

export class CreateChatVirtualMemberDto {
  @ApiProperty({ description: 'A group the bot is an active member of' })
  @IsString()
  @Length(1, 64)
  chat_id: string;

  @ApiProperty({ minLength: 1, maxLength: 100, description: 'Display name shown in the group' })
  @IsString()
  @Length(1, 100)
  name: string;
}

export class ListChatVirtualMembersDto extends PageQueryDto {
  @ApiProperty()
  @IsString()
  @Length(1, 64)
  chat_id: string;
}

export class SendAsVirtualMemberDto {
  @ApiProperty()
  @IsString()
  @Length(1, 64)
  chat_id: string;

  @ApiProperty({ description: 'The user id of one of this bot’s virtual members of the chat' })
  @IsString()
  @Length(1, 128)
  virtual_member_id: string;

  @ApiProperty({ enum: ['text'], description: 'Only text is sent as a virtual member' })
  @Equals('text', { message: 'type must be "text": virtual members send text only' })
  type: 'text';

  @ApiProperty({ minLength: 1, maxLength: VIRTUAL_MEMBER_TEXT_MAX })
  @IsString()
  @Length(1, VIRTUAL_MEMBER_TEXT_MAX)
  text: string;
}
