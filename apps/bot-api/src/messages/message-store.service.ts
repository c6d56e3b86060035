import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { isUuid, namedStatement, runNamed } from '@app/platform';
import { DataSource, EntityManager, In, IsNull } from 'typeorm';
import { botsInChatJson, ChatBot, ChatBotRow, toChatBot } from '../bots/bots.store';
import { ChatsStore } from '../chats/chats.store';
import { Chat } from '../chats/entities/chat.entity';
import { FilesStore } from '../files/files.store';
import { FileLinksService } from '../files/file-links.service';
import { StoredFile } from '../files/entities/file.entity';
import { UpdateColumns, updatesWriteSql, WRITTEN_UPDATE_COLUMNS, WrittenUpdateRow } from '@app/bot-delivery';
import type { Person } from '../users/person';
import { UsersStore } from '../users/users.store';
import { Message, MessageKind, MessageMetadata } from './entities/message.entity';
import { ChatRef } from '../chats/chat-view';
import { messageView } from './message-view';
import { BotErrors } from '../bot-errors';
import { MessageView } from './dto/message.view';
import type { ReplyMarkup } from './dto/reply-markup';
import type { MessageEntity } from '@app/telegram-shapes';

export interface NewMessage {
  chatId: string;
  senderId: string;
  kind: MessageKind;
  text?: string | null;
  entities?: MessageEntity[];
  fileId?: string | null;
  replyToMessageId?: number | null;
  mentions?: string[];
  metadata?: MessageMetadata;
  replyMarkup?: ReplyMarkup | null;
}

/**
 * The whole send of a member in one statement: the sender's active membership, the reply target
 * (live, same chat) and the insert are checked and done atomically, and the chat and the sender's
 * directory entry come back with the new row, so nothing is read again afterwards.
 */
const INSERT_AS_MEMBER = namedStatement(
  'bot_api_message_insert_as_member',
  `WITH member AS (
     SELECT c.id, c.type, c.title, u.name, u.username, u.is_bot
       FROM chats c
       JOIN chat_members cm ON cm.chat_id = c.id AND cm.user_id = $2 AND cm.state = 'active'
       JOIN users u ON u.id = cm.user_id
      WHERE c.id = $1
   ), reply AS (
     SELECT $6::bigint IS NULL OR r.id IS NOT NULL AS ok
       FROM (SELECT 1) one
       LEFT JOIN messages r ON r.id = $6::bigint AND r.chat_id = $1 AND r.deleted_at IS NULL
   ), written AS (
     INSERT INTO messages (chat_id, sender_id, kind, text, file_id, reply_to_message_id, mentions, metadata, reply_markup,
                           entities)
     SELECT member.id, $2, $3, $4, $5, $6::bigint, $7::jsonb, $8::jsonb, $9::jsonb, $10::jsonb
       FROM member, reply WHERE reply.ok
     RETURNING id, created_at
   )
   SELECT member.type, member.title, member.name, member.username, member.is_bot,
          reply.ok AS reply_ok, written.id, written.created_at
     FROM member CROSS JOIN reply LEFT JOIN written ON true`,
);

/**
 * A person's message, step one of two: the membership, the reply target and the chat's bots are
 * read, and the message id and time are drawn, so its Updates can be built before it is written.
 */
const RESERVE_AS_MEMBER = namedStatement(
  'bot_api_message_reserve_as_member',
  `SELECT c.type, c.title, u.name, u.username, u.is_bot, u.is_virtual,
          r.id IS NOT NULL AS reply_found, r.sender_id AS reply_to_sender_id,
          nextval(pg_get_serial_sequence('messages', 'id')) AS id, now() AS created_at,
          ${botsInChatJson('c.id')} AS bots
     FROM chats c
     JOIN chat_members cm ON cm.chat_id = c.id AND cm.user_id = $2 AND cm.state = 'active'
     JOIN users u ON u.id = cm.user_id
     LEFT JOIN messages r ON r.id = $3::bigint AND r.chat_id = c.id AND r.deleted_at IS NULL
    WHERE c.id = $1`,
);

/**
 * Step two: the message under its reserved id with all its Updates and outbox rows, in one statement
 * (so one transaction), written only while the sender is still an active member of the chat.
 */
const INSERT_RESERVED = namedStatement(
  'bot_api_message_insert_reserved',
  `WITH message AS (
     INSERT INTO messages (id, chat_id, sender_id, kind, text, file_id, reply_to_message_id, mentions, metadata,
                           reply_markup, entities, created_at)
     OVERRIDING SYSTEM VALUE
     SELECT $1::bigint, $2::uuid, $3::varchar, $4::varchar, $5::text, $6::uuid, $7::bigint, $8::jsonb, $9::jsonb,
            $10::jsonb, $11::jsonb, $12::timestamptz
      WHERE EXISTS (SELECT 1 FROM chat_members WHERE chat_id = $2::uuid AND user_id = $3::varchar AND state = 'active')
     RETURNING id
   ), ${updatesWriteSql(13, 'message')}
   SELECT EXISTS (SELECT 1 FROM message) AS message_written, ${WRITTEN_UPDATE_COLUMNS}
     FROM (SELECT 1) one
     LEFT JOIN (written_updates w LEFT JOIN delivered d ON d.update_id = w.update_id) ON true`,
);

interface ReservedRow {
  type: ChatRef['type'];
  title: string | null;
  name: string;
  username: string | null;
  is_bot: boolean;
  is_virtual: boolean;
  reply_found: boolean;
  reply_to_sender_id: string | null;
  id: string;
  created_at: Date;
  bots: ChatBotRow[];
}

/** A message id and time drawn for a member's message, with what its Updates need. */
export interface ReservedMessage {
  id: number;
  createdAt: Date;
  chat: ChatRef;
  sender: Person;
  /** Sender of the message replied to, if any. */
  replyToSenderId: string | null;
  /** Usable bots that are active members of the chat. */
  bots: ChatBot[];
}

interface InsertAsMemberRow {
  type: ChatRef['type'];
  title: string | null;
  name: string;
  username: string | null;
  is_bot: boolean;
  reply_ok: boolean;
  id: string | null;
  created_at: Date | null;
}

/** A message written by `insertAsMember`, with what its view needs. */
export interface WrittenMessage {
  message: Message;
  chat: ChatRef;
  sender: Person;
}

export function parseMessageId(value: unknown): number | null {
  const id = typeof value === 'number' ? value : Number(value);
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}

/** Message rows, their receipts and their rendering; shared by the client routes and the bot send operations. */
@Injectable()
export class MessageStore {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly files: FilesStore,
    private readonly links: FileLinksService,
    private readonly chats: ChatsStore,
    private readonly users: UsersStore,
  ) {}

  /** Live messages of the chat, newest first. */
  page(chatId: string, skip: number, take: number): Promise<[Message[], number]> {
    return this.dataSource.getRepository(Message).findAndCount({
      where: { chatId, deletedAt: IsNull() },
      order: { id: 'DESC' },
      skip,
      take,
    });
  }

  insert(manager: EntityManager, input: NewMessage): Promise<Message> {
    const message = manager.create(Message, {
      chatId: input.chatId,
      senderId: input.senderId,
      kind: input.kind,
      text: input.text ?? null,
      entities: input.entities ?? [],
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
  async insertAsMember(on: DataSource | EntityManager, input: NewMessage): Promise<WrittenMessage> {
    // Errors are built only when thrown: capturing a stack costs more than the rest of the call.
    const chatNotFound = () => BotErrors.notFound('Chat');
    if (!isUuid(input.chatId)) throw chatNotFound();
    const replyTo = input.replyToMessageId ?? null;
    if (input.replyToMessageId != null && parseMessageId(replyTo) === null) {
      throw BotErrors.notFound('Message');
    }
    const message = {
      chatId: input.chatId,
      senderId: input.senderId,
      kind: input.kind,
      text: input.text ?? null,
      entities: input.entities ?? [],
      fileId: input.fileId ?? null,
      replyToMessageId: replyTo,
      mentions: input.mentions ?? [],
      metadata: input.metadata ?? {},
      replyMarkup: input.replyMarkup ?? null,
      editedAt: null,
      deletedAt: null,
    };
    const { rows } = await runNamed<InsertAsMemberRow>(on, INSERT_AS_MEMBER, messageColumnValues(message));
    const row = rows[0];
    if (!row) throw chatNotFound();
    if (!row.reply_ok || row.id === null || row.created_at === null) {
      throw BotErrors.notFound('Message');
    }
    return {
      message: { ...message, id: Number(row.id), createdAt: row.created_at },
      chat: { id: input.chatId, type: row.type, title: row.title },
      sender: { id: input.senderId, name: row.name, username: row.username, isBot: row.is_bot },
    };
  }

  /** Step one of a person's message (see RESERVE_AS_MEMBER): 404 unless a member, or for a reply target not live. */
  async reserveAsMember(
    on: DataSource | EntityManager,
    chatId: string,
    senderId: string,
    replyToMessageId: number | null,
  ): Promise<ReservedMessage> {
    if (!isUuid(chatId)) throw BotErrors.notFound('Chat');
    if (replyToMessageId !== null && parseMessageId(replyToMessageId) === null) {
      throw BotErrors.notFound('Message');
    }
    const { rows } = await runNamed<ReservedRow>(on, RESERVE_AS_MEMBER, [chatId, senderId, replyToMessageId]);
    const row = rows[0];
    if (!row) throw BotErrors.notFound('Chat');
    if (replyToMessageId !== null && !row.reply_found) throw BotErrors.notFound('Message');
    return {
      id: Number(row.id),
      createdAt: row.created_at,
      chat: { id: chatId, type: row.type, title: row.title },
      sender: {
        id: senderId,
        name: row.name,
        username: row.username,
        isBot: row.is_bot,
        ...(row.is_virtual ? { isVirtual: true } : {}),
      },
      replyToSenderId: row.reply_to_sender_id,
      bots: row.bots.map(toChatBot),
    };
  }

  /** Step two: the message and its Updates in one statement; 404 if the sender left the chat meanwhile. */
  async insertReserved(
    on: DataSource | EntityManager,
    message: Message,
    updates: UpdateColumns | null,
  ): Promise<WrittenUpdateRow[]> {
    const { rows } = await runNamed<WrittenUpdateRow & { message_written: boolean }>(on, INSERT_RESERVED, [
      message.id,
      ...messageColumnValues(message),
      message.createdAt,
      ...(updates ?? [[], [], [], []]),
    ]);
    if (!rows[0]?.message_written) throw BotErrors.notFound('Chat');
    return rows.filter((row) => row.update_id !== null);
  }

  /** The message with this id in any chat, deleted or not; null for an id that is no message's. */
  async findById(manager: EntityManager, messageId: unknown): Promise<Message | null> {
    const id = parseMessageId(messageId);
    return id === null ? null : manager.getRepository(Message).findOneBy({ id });
  }

  async save(manager: EntityManager, message: Message): Promise<void> {
    await manager.getRepository(Message).save(message);
  }

  /** A live (not deleted) message of the chat, else 404; `lock` serialises edits and deletions of it. */
  async findInChat(manager: EntityManager, chatId: string, messageId: unknown, lock = false): Promise<Message> {
    const message = await this.findLive(manager, chatId, messageId, lock);
    if (!message) throw BotErrors.notFound('Message');
    return message;
  }

  /** A live message of the chat, or null (unknown, deleted, or of another chat). */
  async findLive(manager: EntityManager, chatId: string, messageId: unknown, lock = false): Promise<Message | null> {
    const id = parseMessageId(messageId);
    const message =
      id === null
        ? null
        : await manager.getRepository(Message).findOne({
            where: { id, chatId },
            ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
          });
    return message && !message.deletedAt ? message : null;
  }

  /** Soft delete: replies and receipts keep their reference; a pinned message is unpinned. */
  async markDeleted(manager: EntityManager, chat: Chat, message: Message): Promise<Date> {
    const at = new Date();
    message.deletedAt = at;
    await manager.getRepository(Message).save(message);
    if (chat.pinnedMessageId === message.id) {
      chat.pinnedMessageId = null;
      await this.chats.update(manager, chat.id, { pinnedMessageId: null });
    }
    return at;
  }

  /** The receipt's time, or null when the user had already given this receipt. */
  async addReceipt(
    manager: EntityManager,
    messageId: number,
    userId: string,
    kind: 'read' | 'delivered',
  ): Promise<Date | null> {
    const rows: Array<{ created_at: Date }> = await manager.query(
      `INSERT INTO message_receipts (message_id, user_id, kind) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING RETURNING created_at`,
      [messageId, userId, kind],
    );
    return rows[0]?.created_at ?? null;
  }

  async senderOf(manager: EntityManager, messageId: number | null): Promise<string | null> {
    if (messageId === null) return null;
    const rows: Array<{ sender_id: string }> = await manager.query(`SELECT sender_id FROM messages WHERE id = $1`, [
      messageId,
    ]);
    return rows[0]?.sender_id ?? null;
  }

  /** Messages as readers see them, each with the message it replies to (one level, live ones only). */
  async render(manager: EntityManager, chat: ChatRef, messages: Message[]): Promise<MessageView[]> {
    const targets = await this.replyTargets(manager, chat.id, messages);
    const all = [...messages, ...targets];
    const people = await this.users.people(
      manager,
      all.map((m) => m.senderId),
    );
    const files = await this.files.byIds(
      manager,
      all.map((m) => m.fileId),
    );
    const urls = await this.links.forReadAll(files.values());
    const viewOf = (m: Message, replyTo: MessageView | null) => {
      const file = m.fileId ? files.get(m.fileId)! : null;
      return messageView(m, chat, people.get(m.senderId)!, file, file ? urls.get(file.id)! : null, replyTo);
    };
    const replies = new Map(targets.map((target) => [target.id, viewOf(target, null)]));
    return messages.map((m) =>
      viewOf(m, m.replyToMessageId === null ? null : (replies.get(m.replyToMessageId) ?? null)),
    );
  }

  async renderOne(manager: EntityManager, chat: ChatRef, message: Message): Promise<MessageView> {
    return (await this.render(manager, chat, [message]))[0];
  }

  /**
   * The view a caller reads now: a file's URL is signed for FILE_DOWNLOAD_URL_TTL_SECONDS. A reply
   * carries the message it replies to, read on `on` (the caller's transaction, when it has one).
   */
  async view(
    message: Message,
    chat: ChatRef,
    sender: Person,
    file: StoredFile | null,
    on: EntityManager = this.dataSource.manager,
  ): Promise<MessageView> {
    const replyTo = await this.replyView(on, chat, message, 'read');
    return messageView(message, chat, sender, file, file ? (await this.links.forRead(file)).url : null, replyTo);
  }

  /**
   * The view of the message that `message` replies to, or null (no reply, or the target was deleted).
   * `link` says how long its file's URL must live: a read now, or an Update's delivery.
   */
  async replyView(
    on: EntityManager,
    chat: ChatRef,
    message: Message,
    link: 'read' | 'update',
  ): Promise<MessageView | null> {
    const [target] = await this.replyTargets(on, chat.id, [message]);
    if (!target) return null;
    const sender = await this.users.person(on, target.senderId);
    const file = target.fileId ? ((await this.files.byIds(on, [target.fileId])).get(target.fileId) ?? null) : null;
    const url = file ? (link === 'read' ? await this.links.forRead(file) : await this.links.forUpdate(file)).url : null;
    return messageView(target, chat, sender, file, url);
  }

  private async replyTargets(manager: EntityManager, chatId: string, messages: Message[]): Promise<Message[]> {
    const ids = [...new Set(messages.map((m) => m.replyToMessageId).filter((id): id is number => id !== null))];
    if (ids.length === 0) return [];
    return manager.getRepository(Message).findBy({ id: In(ids), chatId, deletedAt: IsNull() });
  }
}

/** A message's written columns, from chat_id to entities, in the order both insert statements take them. */
function messageColumnValues(message: Pick<Message, MessageColumn>): unknown[] {
  return [
    message.chatId,
    message.senderId,
    message.kind,
    message.text,
    message.fileId,
    message.replyToMessageId,
    JSON.stringify(message.mentions),
    JSON.stringify(message.metadata),
    message.replyMarkup === null ? null : JSON.stringify(message.replyMarkup),
    JSON.stringify(message.entities),
  ];
}

type MessageColumn =
  | 'chatId'
  | 'senderId'
  | 'kind'
  | 'text'
  | 'entities'
  | 'fileId'
  | 'replyToMessageId'
  | 'mentions'
  | 'metadata'
  | 'replyMarkup';
