import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { UserView } from '../../users/user.view';
import { CHAT_TYPES, ChatType } from '../entities/chat.entity';

/** Which chat: what events about an existing message say of it. */
export class ChatIdentityView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: CHAT_TYPES })
  type: ChatType;
}

/** The chat a message or membership change belongs to. */
export class ChatRefView extends ChatIdentityView {
  @ApiProperty({ type: String, nullable: true, description: 'null for private chats' })
  title: string | null;
}

/** A member's status as reads and Updates show it: the rank while active, else how they left. */
export const MEMBER_STATUSES = ['owner', 'administrator', 'member', 'left', 'kicked', 'banned'] as const;
export type MemberStatus = (typeof MEMBER_STATUSES)[number];

export class ChatView extends ChatRefView {
  @ApiProperty({ type: String, nullable: true })
  description: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'HTTPS URL set by setChatPhoto' })
  photo_url: string | null;

  @ApiProperty({ type: 'integer', nullable: true })
  pinned_message_id: number | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

export class ChatMemberView {
  @ApiProperty({ type: UserView })
  user: UserView;

  @ApiProperty({ enum: MEMBER_STATUSES })
  status: MemberStatus;

  @ApiPropertyOptional({ description: 'Only for banned members banned with a reason' })
  ban_reason?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Absent for a user who never joined the chat' })
  joined_at?: string;
}

export class GroupChatView extends ChatView {
  @ApiProperty({ type: [ChatMemberView] })
  members: ChatMemberView[];
}

export class PrivateChatView extends ChatView {
  @ApiProperty({ description: 'The bot of this private chat' })
  bot_id: string;

  @ApiProperty({ description: "The bot's system user, the other member of the chat" })
  bot_user_id: string;
}

export class JoinRequestView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  chat_id: string;

  @ApiProperty()
  user_id: string;

  @ApiProperty({ enum: ['pending', 'approved', 'declined'] })
  status: 'pending' | 'approved' | 'declined';

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

/** A user's profile pictures as getUserProfilePhotos answers them. */
export class UserProfilePhotosView {
  @ApiProperty({ type: 'integer', description: 'Users have no profile pictures here, so this is 0' })
  total_count: number;

  @ApiProperty({ type: 'array', items: { type: 'array', items: { type: 'object' } }, description: 'Empty' })
  photos: unknown[][];
}
