import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** A person or a bot's system user as messages and Updates show them (Telegram's User). */
export class UserView {
  @ApiProperty({ description: 'User id; a bot speaks as its system_user_id' })
  id: string;

  @ApiProperty()
  is_bot: boolean;

  @ApiProperty({ type: String, nullable: true })
  username: string | null;

  @ApiProperty({ description: 'Display name' })
  first_name: string;

  @ApiPropertyOptional({
    enum: [true],
    description: 'Present (and true) only for a virtual member that a bot created and speaks as in one group',
  })
  is_virtual?: true;
}
