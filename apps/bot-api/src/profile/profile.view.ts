import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DELIVERY_MODES, DeliveryMode, FRIEND_REQUEST_MODES, FriendRequestMode } from '../bots/entities/bot.entity';

/** getMe: the bot as it sees itself; `id` is the system user it speaks as, as in Telegram. */
export class BotSelf {
  @ApiProperty({ type: String, nullable: true, description: 'The system user id the bot speaks as in chats' })
  id: string | null;

  @ApiProperty()
  bot_id: string;

  @ApiProperty({ enum: [true] })
  is_bot: true;

  @ApiProperty()
  name: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The chosen username, or the one derived from the name on approval when none was chosen',
  })
  username: string | null;

  @ApiProperty({ type: String, nullable: true })
  description: string | null;

  @ApiProperty({ type: String, nullable: true })
  short_description: string | null;

  @ApiProperty({ type: String, nullable: true })
  avatar: string | null;

  @ApiProperty({ type: [String] })
  scopes: string[];

  @ApiProperty()
  supports_inline_queries: boolean;

  @ApiProperty({ enum: FRIEND_REQUEST_MODES })
  friend_request_mode: FriendRequestMode;

  @ApiProperty({ enum: DELIVERY_MODES })
  delivery_mode: DeliveryMode;
}

/** Only whether the token is usable: nothing tells which bots exist. */
export class VerifyTokenResult {
  @ApiProperty()
  valid: boolean;

  @ApiPropertyOptional({ description: 'Only when valid' })
  bot_id?: string;
}

export class NameView {
  @ApiProperty({ description: 'The display name the bot shows in chats' })
  name: string;
}

export class ShortDescriptionView {
  @ApiProperty({ description: 'Empty when none is set' })
  short_description: string;
}

export class DescriptionView {
  @ApiProperty({ description: 'Empty when none is set' })
  description: string;
}
