/** Every Update type of the service (spec 6.1), with the message sub-kinds that carry their own type value. */
export const UPDATE_TYPES = [
  'message',
  'photo',
  'document',
  'video',
  'audio',
  'location',
  'edited_message',
  'message_deleted',
  'message_read',
  'message_delivered',
  'callback_query',
  'inline_query',
  'friend_request',
  'my_chat_member',
  'chat_member',
  'chat_join_request',
] as const;

export type UpdateType = (typeof UPDATE_TYPES)[number];

/**
 * What an Update carries besides its ids and type: the one member named for the type (spec 6.2),
 * built by the module that writes the Update from its own view (the whole shape is documented by
 * get-updates' UpdateView).
 */
export interface UpdateMembers {
  message?: object;
  callback_query?: object;
  inline_query?: object;
  friend_request?: object;
  my_chat_member?: object;
  chat_member?: object;
  chat_join_request?: object;
}

/** Inbound message kinds whose update_id is derived from bot, message and type, so retries and instances agree. */
export const MESSAGE_UPDATE_TYPES: readonly UpdateType[] = [
  'message',
  'photo',
  'document',
  'video',
  'audio',
  'location',
];

/** Delivered only when listed explicitly in allowed_updates. */
export const OPT_IN_UPDATE_TYPES: readonly UpdateType[] = ['my_chat_member', 'chat_member', 'chat_join_request'];

export function isMessageUpdateType(type: UpdateType): boolean {
  return MESSAGE_UPDATE_TYPES.includes(type);
}

/**
 * Whether a bot with this allowed_updates list gets an Update of `type`. Omitted or empty means every
 * default type; a listed `message` also covers the media sub-kinds (photo, document, …), which are messages.
 */
export function isSubscribed(allowed: readonly string[] | null | undefined, type: UpdateType): boolean {
  if (!allowed || allowed.length === 0) return !OPT_IN_UPDATE_TYPES.includes(type);
  if (allowed.includes(type)) return true;
  return type !== 'message' && isMessageUpdateType(type) && allowed.includes('message');
}
