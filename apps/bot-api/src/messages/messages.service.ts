import { Injectable } from '@nestjs/common';
import type { SqlTarget } from '@app/platform';
import { BotErrors } from '../bot-errors';
import { ChatsStore } from '../chats/chats.store';
import type { Chat } from '../chats/entities/chat.entity';
import type { UpdateColumns, WrittenUpdateRow } from '@app/bot-delivery';
import type { Message } from './entities/message.entity';
import { MessagesStore, NewMessage, ReservedMessage, WrittenMessage } from './messages.store';

/**
 * The rules every module's message writes share: a message is written by an active member of its
 * chat and replies only to a live message of it (404 otherwise, as for an unknown chat or message),
 * and a deleted message no longer stays pinned.
 */
@Injectable()
export class MessagesService {
  constructor(
    private readonly store: MessagesStore,
    private readonly chats: ChatsStore,
  ) {}

  /**
   * Writes the member's message in one statement (see MessagesStore.insertAsMember): on the pool it
   * is its own transaction; given a transaction it joins that transaction.
   */
  async insertAsMember(on: SqlTarget, input: NewMessage): Promise<WrittenMessage> {
    const written = await this.store.insertAsMember(on, input);
    // Errors are built only when thrown: capturing a stack costs more than the rest of the call.
    if (written === 'chat') throw BotErrors.notFound('Chat');
    if (written === 'message') throw BotErrors.notFound('Message');
    return written;
  }

  /** Step one of a person's message: 404 unless a member, or for a reply target that is not live. */
  async reserveAsMember(
    on: SqlTarget,
    chatId: string,
    senderId: string,
    replyToMessageId: number | null,
  ): Promise<ReservedMessage> {
    const reserved = await this.store.reserveAsMember(on, chatId, senderId, replyToMessageId);
    if (reserved === 'chat') throw BotErrors.notFound('Chat');
    if (reserved === 'message') throw BotErrors.notFound('Message');
    return reserved;
  }

  /** Step two: the message and its Updates in one statement; 404 if the sender left the chat meanwhile. */
  async insertReserved(on: SqlTarget, message: Message, updates: UpdateColumns | null): Promise<WrittenUpdateRow[]> {
    const written = await this.store.insertReserved(on, message, updates);
    if (written === null) throw BotErrors.notFound('Chat');
    return written;
  }

  /** A live (not deleted) message of the chat, else 404; `lock` serialises edits and deletions of it. */
  async findInChat(on: SqlTarget, chatId: string, messageId: unknown, lock = false): Promise<Message> {
    const message = await this.store.findLive(on, chatId, messageId, lock);
    if (!message) throw BotErrors.notFound('Message');
    return message;
  }

  /** Soft delete: replies and receipts keep their reference; a pinned message is unpinned. */
  async markDeleted(on: SqlTarget, chat: Chat, message: Message): Promise<Date> {
    const at = await this.store.markDeleted(on, message);
    if (chat.pinnedMessageId === message.id) {
      chat.pinnedMessageId = null;
      await this.chats.update(on, chat.id, { pinnedMessageId: null });
    }
    return at;
  }
}
