import { Injectable } from '@nestjs/common';
import { withDetectedEntities } from '@app/telegram-shapes';
import type { CommitScope } from '../database/after-commit';
import type { StoredFile } from '../files/entities/file.entity';
import type { UpdateEvent } from '../updates/update-event';
import { UpdatesService } from '../updates/updates.service';
import type { UpdateColumns, WrittenUpdateRow } from '@app/bot-delivery';
import { UpdateType } from '../update-types';
import { userView } from '../users/person';
import { UsersStore } from '../users/users.store';
import { Message, MessageKind } from './entities/message.entity';
import { ChatRef } from '../chats/chat-view';
import { ChatBot, ChatsStore } from '../chats/chats.store';
import { unixSeconds } from '../unix-time';
import { messageView } from './message-view';
import { MessagesStore, ReservedMessage } from './messages.store';
import { groupMessageVisibleTo } from '../bots/privacy';
import type { MessageView } from './dto/message.view';

const KIND_TYPES: Partial<Record<MessageKind, UpdateType>> = {
  photo: 'photo',
  document: 'document',
  video: 'video',
  audio: 'audio',
  location: 'location',
  venue: 'location',
};

/** The Update type value of a new message (spec 6.2: media kinds carry their own type value). */
export function updateTypeOf(kind: MessageKind): UpdateType {
  return KIND_TYPES[kind] ?? 'message';
}

/** Fan-out of message events to the bots of a chat, with group privacy applied (spec 6.4). */
@Injectable()
export class MessageEventsService {
  constructor(
    private readonly updates: UpdatesService,
    private readonly store: MessagesStore,
    private readonly chats: ChatsStore,
    private readonly users: UsersStore,
  ) {}

  /**
   * The Updates of a person's new message (reserved with MessagesService.reserveAsMember, which read
   * the chat's bots): every bot of a private chat, and the bots of a group that privacy lets it
   * reach. Bots never receive messages of bots (their own or others'), as in Telegram.
   */
  messagePostedEvents(
    reserved: ReservedMessage,
    message: Message,
    file: StoredFile | null,
    fileUrl: string | null = null,
    replyTo: MessageView | null = null,
  ): UpdateEvent[] {
    const { chat, sender } = reserved;
    if (sender.isBot) return [];
    const bots =
      chat.type === 'private'
        ? reserved.bots
        : reserved.bots.filter((bot) =>
            groupMessageVisibleTo(bot, {
              text: message.text,
              mentions: message.mentions,
              replyToSenderId: reserved.replyToSenderId,
            }),
          );
    const type = updateTypeOf(message.kind);
    const payload = { message: messageView(message, chat, sender, file, fileUrl, replyTo) };
    return bots.map((bot) => ({ bot, type, payload, message: { id: message.id, createdAt: message.createdAt } }));
  }

  /**
   * `messagePostedEvents` as the Update parameters of MessagesService.insertReserved; null when no bot gets one.
   * `fileUrl` is written into the Updates, so it must outlive their delivery (FileLinksService.forUpdate).
   */
  messagePostedUpdates(
    reserved: ReservedMessage,
    message: Message,
    file: StoredFile | null,
    fileUrl: string | null = null,
    replyTo: MessageView | null = null,
  ): UpdateColumns | null {
    return this.updates.columnsOf(this.messagePostedEvents(reserved, message, file, fileUrl, replyTo));
  }

  /** Once insertReserved wrote them: the bots' pollers are woken and the deliveries queued. */
  posted(on: CommitScope, written: readonly WrittenUpdateRow[]): void {
    this.updates.written(on, written);
  }

  /** edited_message, from the message's sender: the new text (a media message's caption) and its formatting. */
  async messageEdited(on: CommitScope, chat: ChatRef, message: Message) {
    const sender = await this.users.person(on, message.senderId);
    const entities = withDetectedEntities(message.entities, message.detectedEntities);
    const body = {
      message_id: message.id,
      chat: { id: chat.id, type: chat.type },
      from: userView(sender),
      kind: message.kind,
      text: message.text,
      ...(entities.length > 0 ? { entities } : {}),
      date: unixSeconds(message.createdAt),
      edit_date: unixSeconds(message.editedAt ?? new Date()),
    };
    for (const bot of await this.audience(on, chat, message)) {
      await this.updates.emit(on, { bot, type: 'edited_message', payload: { message: body } });
    }
  }

  async messageDeleted(on: CommitScope, chat: ChatRef, message: Message, at: Date): Promise<void> {
    const body = { message_id: message.id, chat: { id: chat.id, type: chat.type }, date: unixSeconds(at) };
    for (const bot of await this.audience(on, chat, message)) {
      await this.updates.emit(on, { bot, type: 'message_deleted', payload: { message: body } });
    }
  }

  /** Read and delivered receipts go only to the bot that sent the message. */
  async receipt(on: CommitScope, chat: ChatRef, message: Message, kind: 'read' | 'delivered', at: Date) {
    const bot = await this.chats.botOfUser(on, message.senderId, chat.id);
    if (!bot) return;
    const body = { message_id: message.id, chat: { id: chat.id, type: chat.type }, date: unixSeconds(at) };
    const type = kind === 'read' ? 'message_read' : 'message_delivered';
    await this.updates.emit(on, { bot, type, payload: { message: body } });
  }

  /**
   * Bots that see events about this message: its sender if that is a bot (own edits and deletions), and
   * for a person's message every bot of a private chat, or of a group when privacy lets the message through.
   */
  private async audience(on: CommitScope, chat: ChatRef, message: Message): Promise<ChatBot[]> {
    const bots = await this.chats.botsInChat(on, chat.id);
    const senderBot = bots.find((bot) => bot.systemUserId === message.senderId);
    if (senderBot) return [senderBot];
    if (await this.users.isBot(on, message.senderId)) return [];
    if (chat.type === 'private') return bots;
    const replyToSenderId = await this.store.senderOf(on, message.replyToMessageId);
    return bots.filter((bot) =>
      groupMessageVisibleTo(bot, { text: message.text, mentions: message.mentions, replyToSenderId }),
    );
  }
}
