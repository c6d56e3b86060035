import { Injectable } from '@nestjs/common';
import { ApiError } from '@app/envelope';
import { namedStatement, runNamed } from '@app/platform';
import { DataSource, EntityManager } from 'typeorm';
import { botsInChatJson, ChatBot, ChatBotRow, isUuid, loadPeople, toChatBot } from '../chats/chat-queries';
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

/**
 * The whole send of a member in one statement: the sender's active membership, the reply target
 * (live, same chat) and the insert are checked and done atomically, and the chat and the sender's
 * directory entry come back with the new row, so nothing is read again afterwards. `extra` adds
 * columns read in the same statement.
 */
function insertAsMemberSql(extra = ''): string {
  return `WITH member AS (
     SELECT c.id, c.type, c.title, u.name, u.username, u.is_bot
       FROM chats c
       JOIN chat_members cm ON cm.chat_id = c.id AND cm.user_id = $2 AND cm.state = 'active'
       JOIN users u ON u.id = cm.user_id
      WHERE c.id = $1
   ), reply AS (
     SELECT $6::bigint IS NULL OR r.id IS NOT NULL AS ok, r.sender_id
       FROM (SELECT 1) one
       LEFT JOIN messages r ON r.id = $6::bigint AND r.chat_id = $1 AND r.deleted_at IS NULL
   ), written AS (
     INSERT INTO messages (chat_id, sender_id, kind, text, file_id, reply_to_message_id, mentions, metadata, reply_markup)
     SELECT member.id, $2, $3, $4, $5, $6::bigint, $7::jsonb, $8::jsonb, $9::jsonb FROM member, reply WHERE reply.ok
     RETURNING id, created_at
   )
   SELECT member.type, member.title, member.name, member.username, member.is_bot,
          reply.ok AS reply_ok, reply.sender_id AS reply_to_sender_id, written.id, written.created_at${extra}
     FROM member CROSS JOIN reply LEFT JOIN written ON true`;
}

const INSERT_AS_MEMBER = namedStatement('bot_api_message_insert_as_member', insertAsMemberSql());

/** The same, also reading the bots of the chat that a person's message may have to reach. */
const INSERT_AS_MEMBER_WITH_BOTS = namedStatement(
  'bot_api_message_insert_as_member_with_bots',
  insertAsMemberSql(`, ${botsInChatJson('member.id')} AS bots`),
);

interface InsertAsMemberRow {
  type: ChatRef['type'];
  title: string | null;
  name: string;
  username: string | null;
  is_bot: boolean;
  reply_ok: boolean;
  reply_to_sender_id: string | null;
  id: string | null;
  created_at: Date | null;
  bots?: ChatBotRow[];
}

/** A message written by `insertAsMember`, with what its view needs. */
export interface WrittenMessage {
  message: Message;
  chat: ChatRef;
  sender: Person;
  /** Sender of the message replied to, if any. */
  replyToSenderId: string | null;
  /** Usable bots that are active members of the chat; only when asked for with `withBots`. */
  bots: ChatBot[];
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

  /**
   * Writes the message if its sender is an active member of the chat (else 404 like an unknown chat)
   * and its reply target is a live message of that chat (else 404). One statement: on the pool it is
   * its own transaction; given a transaction's manager it joins that transaction.
   */
  async insertAsMember(
    on: DataSource | EntityManager,
    input: NewMessage,
    withBots = false,
  ): Promise<WrittenMessage> {
    // Errors are built only when thrown: capturing a stack costs more than the rest of the call.
    const chatNotFound = () => new ApiError(404, undefined, 'Chat not found');
    if (!isUuid(input.chatId)) throw chatNotFound();
    const replyTo = input.replyToMessageId ?? null;
    if (input.replyToMessageId != null && parseMessageId(replyTo) === null) {
      throw new ApiError(404, undefined, 'Message not found');
    }
    const message = {
      chatId: input.chatId,
      senderId: input.senderId,
      kind: input.kind,
      text: input.text ?? null,
      fileId: input.fileId ?? null,
      replyToMessageId: replyTo,
      mentions: input.mentions ?? [],
      metadata: input.metadata ?? {},
      replyMarkup: input.replyMarkup ?? null,
      editedAt: null,
      deletedAt: null,
    };
    const statement = withBots ? INSERT_AS_MEMBER_WITH_BOTS : INSERT_AS_MEMBER;
    const { rows } = await runNamed<InsertAsMemberRow>(on, statement, [
      message.chatId,
      message.senderId,
      message.kind,
      message.text,
      message.fileId,
      message.replyToMessageId,
      JSON.stringify(message.mentions),
      JSON.stringify(message.metadata),
      message.replyMarkup === null ? null : JSON.stringify(message.replyMarkup),
    ]);
    const row = rows[0];
    if (!row) throw chatNotFound();
    if (!row.reply_ok || row.id === null || row.created_at === null) {
      throw new ApiError(404, undefined, 'Message not found');
    }
    return {
      message: { ...message, id: Number(row.id), createdAt: row.created_at },
      chat: { id: input.chatId, type: row.type, title: row.title },
      sender: { id: input.senderId, name: row.name, username: row.username, isBot: row.is_bot },
      replyToSenderId: row.reply_to_sender_id,
      bots: (row.bots ?? []).map(toChatBot),
    };
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
