import { Injectable } from '@nestjs/common';
import { ApiError } from '@app/envelope';
import { EntityManager } from 'typeorm';
import { loadPeople } from '../chats/chat-queries';
import { Chat } from '../chats/entities/chat.entity';
import { FilesService } from '../files/files.service';
import { StoredFile } from '../files/entities/file.entity';
import { Message, MessageKind, MessageMetadata } from './entities/message.entity';
import { ChatRef, messageView, Person } from './message-view';

export interface NewMessage {
  chatId: string;
  senderId: string;
  kind: MessageKind;
  text?: string | null;
  fileId?: string | null;
  replyToMessageId?: number | null;
  mentions?: string[];
  metadata?: MessageMetadata;
  replyMarkup?: Record<string, unknown> | null;
}

export function parseMessageId(value: unknown): number | null {
  const id = typeof value === 'number' ? value : Number(value);
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}

/** Message rows and their rendering; shared by the client routes and the bot send operations. */
@Injectable()
export class MessageStore {
  constructor(private readonly files: FilesService) {}

  insert(manager: EntityManager, input: NewMessage): Promise<Message> {
    const message = manager.create(Message, {
      chatId: input.chatId,
      senderId: input.senderId,
      kind: input.kind,
      text: input.text ?? null,
      fileId: input.fileId ?? null,
      replyToMessageId: input.replyToMessageId ?? null,
      mentions: input.mentions ?? [],
      metadata: input.metadata ?? {},
      replyMarkup: input.replyMarkup ?? null,
    });
    return manager.getRepository(Message).save(message);
  }

  /** A live (not deleted) message of the chat, else 404; `lock` serialises edits and deletions of it. */
  async findInChat(manager: EntityManager, chatId: string, messageId: unknown, lock = false): Promise<Message> {
    const id = parseMessageId(messageId);
    const message =
      id === null
        ? null
        : await manager.getRepository(Message).findOne({
            where: { id, chatId },
            ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
          });
    if (!message || message.deletedAt) throw new ApiError(404, undefined, 'Message not found');
    return message;
  }

  /** Soft delete: replies and receipts keep their reference; a pinned message is unpinned. */
  async markDeleted(manager: EntityManager, chat: Chat, message: Message): Promise<Date> {
    const at = new Date();
    message.deletedAt = at;
    await manager.getRepository(Message).save(message);
    if (chat.pinnedMessageId === message.id) {
      chat.pinnedMessageId = null;
      await manager.getRepository(Chat).update({ id: chat.id }, { pinnedMessageId: null });
    }
    return at;
  }

  async senderOf(manager: EntityManager, messageId: number | null): Promise<string | null> {
    if (messageId === null) return null;
    const rows: Array<{ sender_id: string }> = await manager.query(`SELECT sender_id FROM messages WHERE id = $1`, [
      messageId,
    ]);
    return rows[0]?.sender_id ?? null;
  }

  async render(manager: EntityManager, chat: ChatRef, messages: Message[]) {
    const people = await loadPeople(
      manager,
      messages.map((m) => m.senderId),
    );
    const files = await this.files.byIds(
      manager,
      messages.map((m) => m.fileId),
    );
    return messages.map((m) => messageView(m, chat, people.get(m.senderId)!, m.fileId ? files.get(m.fileId)! : null));
  }

  async renderOne(manager: EntityManager, chat: ChatRef, message: Message) {
    return (await this.render(manager, chat, [message]))[0];
  }

  view(message: Message, chat: ChatRef, sender: Person, file: StoredFile | null) {
    return messageView(message, chat, sender, file);
  }
}
