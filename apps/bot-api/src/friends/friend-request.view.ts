import { ApiProperty } from '@nestjs/swagger';
import { PageOf } from '@app/platform';
import { FRIEND_REQUEST_MODES, FriendRequestMode } from '../bots/entities/bot.entity';
import type { FriendRequestStatus } from './entities/friend-request.entity';
import type { FriendRequest } from './friend-requests.store';

/** Who asked: the user directory entry of the requester. */
export class FriendRequestSenderView {
  @ApiProperty()
  id: string;

  @ApiProperty({ description: 'Display name' })
  name: string;

  @ApiProperty({ type: String, nullable: true })
  username: string | null;

  @ApiProperty()
  is_bot: boolean;
}

/** The `friend_request` member of the Update (spec 6.2): what the bot is asked, without the state. */
export class FriendRequestUpdateView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ type: FriendRequestSenderView })
  from: FriendRequestSenderView;

  @ApiProperty({ type: String, nullable: true })
  request_message: string | null;

  @ApiProperty({ description: 'Where the request was made, e.g. client' })
  source: string;

  @ApiProperty({ type: 'integer', description: 'Unix seconds' })
  date: number;
}

/** The request as its routes return it: the Update member plus the bot and the request's state. */
export class FriendRequestView extends FriendRequestUpdateView {
  @ApiProperty()
  bot_id: string;

  @ApiProperty({ enum: ['pending', 'accepted', 'rejected'] })
  status: FriendRequestStatus;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  answered_at: string | null;
}

export class FriendRequestPage extends PageOf(FriendRequestView) {}

export class FriendRequestModeView {
  @ApiProperty({ enum: FRIEND_REQUEST_MODES })
  friend_request_mode: FriendRequestMode;
}

export function friendRequestView(request: FriendRequest, from: FriendRequestSenderView): FriendRequestView {
  return {
    id: request.id,
    bot_id: request.botId,
    from,
    request_message: request.message,
    source: request.source,
    status: request.status,
    date: Math.floor(request.createdAt.getTime() / 1000),
    answered_at: request.answeredAt ? request.answeredAt.toISOString() : null,
  };
}

/** The Update payload: the members of 6.2 only; the bot learns the state by answering. */
export function friendRequestUpdateMember(view: FriendRequestView): FriendRequestUpdateView {
  return {
    id: view.id,
    from: view.from,
    request_message: view.request_message,
    source: view.source,
    date: view.date,
  };
}
