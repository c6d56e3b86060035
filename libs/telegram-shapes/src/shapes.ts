import type { TelegramIds } from './ids';
import type {
  NativeCallbackQuery,
  NativeChat,
  NativeFile,
  NativeInlineQuery,
  NativeJoinRequest,
  NativeMember,
  NativeMemberUpdate,
  NativeMessage,
  NativeUpdate,
  NativeUser,
} from './native';

/** Telegram objects are plain JSON; fields that do not apply are absent, never null. */
export type TelegramObject = Record<string, unknown>;

/** Native Update types that Telegram calls `message`: every new message, whatever its kind. */
const MESSAGE_TYPES = new Set(['message', 'photo', 'document', 'video', 'audio', 'location']);

/** Update types with a Telegram counterpart; the others (receipts, deletions, friend requests) are not sent. */
export const TELEGRAM_UPDATE_TYPES = [
  'message',
  'edited_message',
  'callback_query',
  'inline_query',
  'my_chat_member',
  'chat_member',
  'chat_join_request',
] as const;

function present<T extends TelegramObject>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined && value !== null)) as T;
}

export function toTelegramUser(user: NativeUser, ids: TelegramIds): TelegramObject {
  const name = user.first_name.trim();
  return present({
    id: ids.user(user.id),
    is_bot: user.is_bot,
    first_name: name.length > 0 ? name : (user.username ?? 'User'),
    username: user.username ?? undefined,
  });
}

export function toTelegramChat(chat: NativeChat, ids: TelegramIds): TelegramObject {
  return present({
    id: ids.chat(chat.id, chat.type),
    type: chat.type,
    title: chat.type === 'group' ? (chat.title ?? '') : undefined,
    description: chat.description ?? undefined,
  });
}

function fileBase(file: NativeFile): TelegramObject {
  return { file_id: file.file_id, file_unique_id: file.file_id.replace(/-/g, ''), file_size: file.file_size };
}

/** The block of a media message under the kind's Telegram name. */
function mediaOf(kind: string, file: NativeFile): TelegramObject {
  const base = fileBase(file);
  switch (kind) {
    case 'photo':
      return { photo: [present({ ...base, width: file.width ?? 0, height: file.height ?? 0 })] };
    case 'video':
    case 'animation':
      return {
        [kind]: present({
          ...base,
          width: file.width ?? 0,
          height: file.height ?? 0,
          duration: file.duration ?? 0,
          file_name: file.file_name,
          mime_type: file.mime_type,
        }),
      };
    case 'video_note':
      return { video_note: present({ ...base, length: file.width ?? 0, duration: file.duration ?? 0 }) };
    case 'audio':
      return {
        audio: present({
          ...base,
          duration: file.duration ?? 0,
          performer: file.performer,
          title: file.title,
          file_name: file.file_name,
          mime_type: file.mime_type,
        }),
      };
    case 'voice':
      return { voice: present({ ...base, duration: file.duration ?? 0, mime_type: file.mime_type }) };
    case 'sticker':
      return {
        sticker: {
          ...base,
          type: 'regular',
          width: file.width ?? 0,
          height: file.height ?? 0,
          is_animated: false,
          is_video: false,
        },
      };
    default:
      return { document: present({ ...base, file_name: file.file_name, mime_type: file.mime_type }) };
  }
}

/** Telegram's Poll of a native poll message; its id is `<chat>:<message_id>`. */
export function toTelegramPoll(message: NativeMessage & { poll: NonNullable<NativeMessage['poll']> }): TelegramObject {
  const total = message.poll.options.reduce((sum, option) => sum + option.voter_count, 0);
  return present({
    id: `${message.chat.id}:${message.message_id}`,
    question: message.poll.question,
    options: message.poll.options.map((option) => ({ text: option.text, voter_count: option.voter_count })),
    total_voter_count: total,
    is_closed: message.poll.is_closed === true,
    is_anonymous: message.poll.is_anonymous,
    type: message.poll.type,
    allows_multiple_answers: false,
    correct_option_id: message.poll.correct_option_id,
  });
}

function kindBlocks(message: NativeMessage): TelegramObject {
  if (message.poll) return { poll: toTelegramPoll({ ...message, poll: message.poll }) };
  if (message.venue) {
    return {
      location: message.venue.location,
      venue: present({
        location: message.venue.location,
        title: message.venue.title ?? '',
        address: message.venue.address ?? '',
      }),
    };
  }
  if (message.location)
    return { location: { latitude: message.location.latitude, longitude: message.location.longitude } };
  if (message.dice) return { dice: { emoji: message.dice.emoji, value: message.dice.value } };
  if (message.contact) return { contact: present({ ...message.contact }) };
  if (message.file) return mediaOf(message.kind ?? 'document', message.file);
  return {};
}

const MEDIA_KINDS = new Set(['photo', 'document', 'video', 'audio', 'voice', 'video_note', 'animation', 'sticker']);

/**
 * A native message as Telegram's Message; the text of a media message becomes its caption, with
 * its entities as caption_entities. A reply carries the message replied to, one level deep.
 */
export function toTelegramMessage(message: NativeMessage, ids: TelegramIds): TelegramObject {
  const blocks = kindBlocks(message);
  const media = (message.file !== undefined || MEDIA_KINDS.has(message.kind ?? '')) && !message.poll;
  const words = media ? (message.caption ?? message.text) : message.poll ? null : message.text;
  // The native view carries every entity, those detected when the message was written among them:
  // mapping it detects nothing.
  const entities = !words ? [] : (message.entities ?? []);
  const { reply_to_message: _nested, ...replied } = message.reply_to_message ?? ({} as Partial<NativeMessage>);
  return present({
    message_id: message.message_id,
    from: message.from ? toTelegramUser(message.from, ids) : undefined,
    date: message.date,
    chat: toTelegramChat(message.chat, ids),
    edit_date: message.edit_date,
    media_group_id: message.media_group_id,
    forward_date: message.forward_from?.date,
    reply_to_message: message.reply_to_message ? toTelegramMessage(replied as NativeMessage, ids) : undefined,
    ...(media
      ? { caption: words ?? undefined, caption_entities: entities.length > 0 ? entities : undefined }
      : { text: words ?? undefined, entities: entities.length > 0 ? entities : undefined }),
    ...blocks,
    reply_markup: message.reply_markup?.inline_keyboard?.length ? message.reply_markup : undefined,
  });
}

/** Native statuses as Telegram's ChatMember statuses: the owner is `creator`, a banned member `kicked`. */
export function telegramMemberStatus(status: NativeMember['status']): string {
  switch (status) {
    case 'owner':
      return 'creator';
    case 'banned':
    case 'kicked':
      return 'kicked';
    default:
      return status;
  }
}

export function toTelegramChatMember(member: NativeMember, ids: TelegramIds): TelegramObject {
  const status = telegramMemberStatus(member.status);
  const user = toTelegramUser(member.user, ids);
  switch (status) {
    case 'creator':
      return { status, user, is_anonymous: false };
    case 'administrator':
      return {
        status,
        user,
        can_be_edited: false,
        is_anonymous: false,
        can_manage_chat: true,
        can_delete_messages: true,
        can_manage_video_chats: false,
        can_restrict_members: true,
        can_promote_members: false,
        can_change_info: true,
        can_invite_users: true,
        can_post_stories: false,
        can_edit_stories: false,
        can_delete_stories: false,
      };
    case 'kicked':
      return { status, user, until_date: 0 };
    default:
      return { status, user };
  }
}

function toTelegramMemberUpdate(update: NativeMemberUpdate, ids: TelegramIds): TelegramObject {
  return {
    chat: toTelegramChat(update.chat, ids),
    from: toTelegramUser(update.from, ids),
    date: update.date,
    old_chat_member: toTelegramChatMember(update.old_chat_member, ids),
    new_chat_member: toTelegramChatMember(update.new_chat_member, ids),
  };
}

export function toTelegramCallbackQuery(query: NativeCallbackQuery, ids: TelegramIds): TelegramObject {
  const chat = query.message.chat;
  return {
    id: query.id,
    from: toTelegramUser(query.from, ids),
    // Telegram's MaybeInaccessibleMessage: without the content, which the callback does not carry.
    message: { message_id: query.message.message_id, chat: toTelegramChat({ ...chat, title: null }, ids), date: 0 },
    chat_instance: query.chat_instance,
    data: query.data,
  };
}

export function toTelegramInlineQuery(query: NativeInlineQuery, ids: TelegramIds): TelegramObject {
  return {
    id: query.id,
    from: toTelegramUser(query.from, ids),
    query: query.query,
    offset: query.offset,
    chat_type: query.chat_type,
  };
}

function toTelegramJoinRequest(request: NativeJoinRequest, ids: TelegramIds): TelegramObject {
  const userId = ids.user(request.from.id);
  return {
    chat: toTelegramChat(request.chat, ids),
    from: toTelegramUser(request.from, ids),
    user_chat_id: userId,
    date: request.date,
  };
}

/**
 * The Telegram Update of a native one, or null for types Telegram has no counterpart for. `update_id`
 * is the bot's `update_seq`: an increasing integer per bot, so offsets work as Telegram's.
 */
export function toTelegramUpdate(update: NativeUpdate, ids: TelegramIds): TelegramObject | null {
  const update_id = update.update_seq;
  if (MESSAGE_TYPES.has(update.type) && update.message) {
    return { update_id, message: toTelegramMessage(update.message, ids) };
  }
  switch (update.type) {
    case 'edited_message':
      if (!update.message) return null;
      return { update_id, edited_message: toTelegramMessage({ kind: 'text', ...update.message }, ids) };
    case 'callback_query':
      return update.callback_query
        ? { update_id, callback_query: toTelegramCallbackQuery(update.callback_query, ids) }
        : null;
    case 'inline_query':
      return update.inline_query ? { update_id, inline_query: toTelegramInlineQuery(update.inline_query, ids) } : null;
    case 'my_chat_member':
      return update.my_chat_member
        ? { update_id, my_chat_member: toTelegramMemberUpdate(update.my_chat_member, ids) }
        : null;
    case 'chat_member':
      return update.chat_member ? { update_id, chat_member: toTelegramMemberUpdate(update.chat_member, ids) } : null;
    case 'chat_join_request':
      return update.chat_join_request
        ? { update_id, chat_join_request: toTelegramJoinRequest(update.chat_join_request, ids) }
        : null;
    default:
      return null;
  }
}

/**
 * Telegram's allowed_updates as native Update types. Names without a native counterpart (channel
 * posts, polls, …) select nothing; `message` also covers the native media types.
 */
export function nativeAllowedUpdates(telegram: readonly string[]): string[] {
  const known = new Set<string>(TELEGRAM_UPDATE_TYPES);
  return [...new Set(telegram.filter((name) => known.has(name)))];
}
