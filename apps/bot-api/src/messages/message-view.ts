import { withDetectedEntities } from '@app/telegram-shapes';
import { ChatRef, chatRefView } from '../chats/chat-view';
import { unixSeconds } from '../unix-time';
import type { StoredFile } from '../files/entities/file.entity';
import { Person, userView } from '../users/person';
import type { Message } from './entities/message.entity';
import { FileView, MessageView } from './dto/message.view';

const MEDIA_KINDS = new Set(['photo', 'document', 'video', 'audio', 'voice', 'video_note', 'animation', 'sticker']);

export function isMediaKind(kind: string): boolean {
  return MEDIA_KINDS.has(kind);
}

/**
 * The file block of messages and Updates (spec 2.3); per-message values win over the stored metadata.
 * `url` is a temporary download URL signed by the caller for as long as the view will be read.
 */
export function fileView(file: StoredFile, message: Pick<Message, 'metadata'>, url: string | null = null): FileView {
  const own = message.metadata.file ?? {};
  return {
    file_id: file.id,
    file_name: file.fileName,
    mime_type: file.mimeType,
    file_size: file.fileSize,
    url,
    thumbnail_url: null,
    width: own.width ?? file.width,
    height: own.height ?? file.height,
    duration: own.duration ?? file.duration,
    ...(own.performer !== undefined ? { performer: own.performer } : {}),
    ...(own.title !== undefined ? { title: own.title } : {}),
  };
}

/**
 * The one message shape used by send results, client message lists and message Updates: the fields
 * of spec 2.3 and 6.2 plus the kind-specific blocks, with absent blocks left out. `replyTo` is the
 * view of the message replied to, when it is still there; it never carries a reply of its own.
 */
export function messageView(
  message: Message,
  chat: ChatRef,
  sender: Person,
  file: StoredFile | null,
  fileUrl: string | null = null,
  replyTo: MessageView | null = null,
): MessageView {
  const meta = message.metadata;
  const view: MessageView = {
    message_id: message.id,
    chat: chatRefView(chat),
    from: userView(sender),
    date: unixSeconds(message.createdAt),
    kind: message.kind,
    text: message.text,
    metadata: meta,
  };
  // Detected when the message was written: a read only shows them.
  const entities = withDetectedEntities(message.entities, message.detectedEntities);
  if (entities.length > 0) view.entities = entities;
  if (isMediaKind(message.kind)) {
    view.caption = message.text;
    if (entities.length > 0) view.caption_entities = entities;
  }
  if (file) view.file = fileView(file, message, fileUrl);
  if (meta.location) {
    const point = { latitude: meta.location.latitude, longitude: meta.location.longitude };
    if (meta.isVenue) {
      const title = meta.location.title ?? meta.location.name;
      const named = meta.location.name !== undefined && meta.location.name !== title;
      view.location = named ? { ...point, name: meta.location.name } : point;
      view.venue = { location: point, title, address: meta.location.address ?? null };
    } else {
      view.location = meta.location.name ? { ...point, name: meta.location.name } : point;
    }
  }
  if (meta.diceEmoji && meta.diceValue !== undefined) view.dice = { emoji: meta.diceEmoji, value: meta.diceValue };
  if (meta.poll) {
    view.poll = {
      question: meta.poll.question,
      options: meta.poll.options.map((text) => ({ text, voter_count: 0 })),
      is_anonymous: meta.poll.is_anonymous,
      type: meta.poll.type,
      is_closed: meta.poll.is_closed === true,
      ...(meta.poll.correct_option_id !== undefined ? { correct_option_id: meta.poll.correct_option_id } : {}),
    };
  }
  if (meta.contact) view.contact = meta.contact;
  if (message.replyToMessageId !== null) view.reply_to_message_id = message.replyToMessageId;
  if (replyTo) {
    const { reply_to_message: _nested, ...target } = replyTo;
    view.reply_to_message = target;
  }
  if (message.mentions.length > 0) view.mentions = message.mentions;
  if (message.replyMarkup) view.reply_markup = message.replyMarkup;
  if (meta.forwardFrom) view.forward_from = meta.forwardFrom;
  if (meta.mediaGroupId) view.media_group_id = meta.mediaGroupId;
  if (message.editedAt) view.edit_date = unixSeconds(message.editedAt);
  return view;
}
