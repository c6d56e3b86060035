import type { MessageEntity } from './formatting/entities';

/**
 * The native bot-service shapes the mappers read: the parts of bot-api's message, chat, member and
 * Update views that have a Telegram counterpart. Written here structurally because a lib never
 * imports an app; bot-api's views satisfy them.
 */
export interface NativeUser {
  id: string;
  is_bot: boolean;
  username: string | null;
  first_name: string;
  is_virtual?: true;
}

export interface NativeChat {
  id: string;
  type: 'private' | 'group';
  title?: string | null;
  description?: string | null;
}

export interface NativeFile {
  file_id: string;
  file_name: string;
  mime_type: string;
  file_size: number;
  width: number | null;
  height: number | null;
  duration: number | null;
  performer?: string;
  title?: string;
}

export interface NativeInlineButton {
  text: string;
  callback_data?: string;
  url?: string;
}

export interface NativeMessage {
  message_id: number;
  chat: NativeChat;
  from?: NativeUser;
  date: number;
  kind?: string;
  text: string | null;
  /** Formatting of text (stored and detected), UTF-16 offsets. */
  entities?: MessageEntity[];
  caption?: string | null;
  file?: NativeFile;
  location?: { latitude: number; longitude: number };
  venue?: { location: { latitude: number; longitude: number }; title?: string; address: string | null };
  dice?: { emoji: string; value: number };
  poll?: {
    question: string;
    options: Array<{ text: string; voter_count: number }>;
    is_anonymous: boolean;
    type: 'regular' | 'quiz';
    correct_option_id?: number;
    is_closed?: boolean;
  };
  contact?: { phone_number: string; first_name: string; last_name?: string };
  reply_to_message_id?: number;
  /** The message replied to, one level deep. */
  reply_to_message?: NativeMessage;
  reply_markup?: { inline_keyboard: NativeInlineButton[][] } | null;
  forward_from?: { chat_id: string; message_id: number; from_user_id: string; date: number };
  media_group_id?: string;
  edit_date?: number;
}

export type NativeMemberStatus = 'owner' | 'administrator' | 'member' | 'left' | 'kicked' | 'banned';

export interface NativeMember {
  user: NativeUser;
  status: NativeMemberStatus;
}

export interface NativeMemberUpdate {
  chat: NativeChat;
  from: NativeUser;
  date: number;
  old_chat_member: NativeMember;
  new_chat_member: NativeMember;
}

export interface NativeCallbackQuery {
  id: string;
  from: NativeUser;
  message: { message_id: number; chat: NativeChat };
  data: string;
  chat_instance: string;
}

export interface NativeInlineQuery {
  id: string;
  from: NativeUser;
  query: string;
  offset: string;
  chat_type: 'sender' | 'private' | 'group';
}

export interface NativeJoinRequest {
  id: string;
  chat: NativeChat;
  from: NativeUser;
  user_chat_id: string;
  date: number;
}

/** A stored Update as getUpdates and the webhook body carry it; `update_seq` is the per-bot integer. */
export interface NativeUpdate {
  update_id: string;
  type: string;
  update_seq: number;
  message?: NativeMessage;
  callback_query?: NativeCallbackQuery;
  inline_query?: NativeInlineQuery;
  my_chat_member?: NativeMemberUpdate;
  chat_member?: NativeMemberUpdate;
  chat_join_request?: NativeJoinRequest;
}
