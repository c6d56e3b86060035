import { Person, userView } from '../users/person';
import { memberStatus } from './chats.store';
import type { Chat } from './entities/chat.entity';
import type { ChatMember } from './entities/chat-member.entity';
import { ChatMemberView, ChatView } from './dto/chat.view';

/** Which chat a message or an event belongs to, as the views need it. */
export type ChatRef = Pick<Chat, 'id' | 'type' | 'title'>;

export function chatRefView(chat: ChatRef) {
  return { id: chat.id, type: chat.type, title: chat.title };
}

export function chatView(chat: Chat): ChatView {
  return {
    id: chat.id,
    type: chat.type,
    title: chat.title,
    description: chat.description,
    photo_url: chat.photoUrl,
    pinned_message_id: chat.pinnedMessageId,
    created_at: chat.createdAt.toISOString(),
  };
}

export function memberView(member: ChatMember, person: Person): ChatMemberView {
  return {
    user: userView(person),
    status: memberStatus(member),
    ...(member.state === 'banned' && member.banReason ? { ban_reason: member.banReason } : {}),
    joined_at: member.joinedAt.toISOString(),
  };
}
