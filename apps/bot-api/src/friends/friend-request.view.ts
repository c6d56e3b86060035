import type { FriendRequest } from './entities/friend-request.entity';

export interface RequestSender {
  id: string;
  name: string;
  username: string | null;
  is_bot: boolean;
}

/** The `friend_request` member of the Update (spec 6.2) plus the request's state. */
export interface FriendRequestView {
  id: string;
  bot_id: string;
  from: RequestSender;
  request_message: string | null;
  source: string;
  status: FriendRequest['status'];
  date: number;
  answered_at: string | null;
}

export function friendRequestView(request: FriendRequest, from: RequestSender): FriendRequestView {
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
export function friendRequestUpdateMember(view: FriendRequestView) {
  return {
    id: view.id,
    from: view.from,
    request_message: view.request_message,
    source: view.source,
    date: view.date,
  };
}
