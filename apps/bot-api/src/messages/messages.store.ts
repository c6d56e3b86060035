import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { isUuid, namedStatement, runNamed } from '@app/platform';
import {
  composedStatement,
  NO_UPDATES,
  OUTBOX_WRITTEN,
  OUTBOX_WRITTEN_COLUMNS,
  outboxWriteSql,
  UpdateColumns,
  WrittenUpdateRow,
} from '@app/bot-delivery';
import { DataSource, EntityManager, In, IsNull } from 'typeorm';
import { botsInChatJson, ChatBot, ChatBotRow, toChatBot } from '../chats/chats.store';
import type { Person } from '../users/person';
import { Message, MessageKind, MessageMetadata } from './entities/message.entity';
import { ChatRef } from '../chats/chat-view';
import type { ReplyMarkup } from './dto/reply-markup';
import type { MessageEntity } from '@app/telegram-shapes';
import { textColumns } from './message-text';

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
                           entities, detected_entities, detected_text_md5)
     SELECT member.id, $2, $3, $4, $5, $6::bigint, $7::jsonb, $8::jsonb, $9::jsonb, $10::jsonb, $11::jsonb, $12::uuid
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
const INSERT_RESERVED = composedStatement<MessageColumns & { id: number; created_at: Date } & UpdateColumns>(
  'bot_api_message_insert_reserved',
  (p) => `WITH message AS (
     INSERT INTO messages (id, chat_id, sender_id, kind, text, file_id, reply_to_message_id, mentions, metadata,
                           reply_markup, entities, detected_entities, detected_text_md5, created_at)
     OVERRIDING SYSTEM VALUE
     SELECT ${p.id}::bigint, ${p.chat_id}::uuid, ${p.sender_id}::varchar, ${p.kind}::varchar, ${p.text}::text,
            ${p.file_id}::uuid, ${p.reply_to_message_id}::bigint, ${p.mentions}::jsonb, ${p.metadata}::jsonb,
            ${p.reply_markup}::jsonb, ${p.entities}::jsonb, ${p.detected_entities}::jsonb,
            ${p.detected_text_md5}::uuid, ${p.created_at}::timestamptz
      WHERE EXISTS (SELECT 1 FROM chat_members
                     WHERE chat_id = ${p.chat_id}::uuid AND user_id = ${p.sender_id}::varchar AND state = 'active')
     RETURNING id
   ), ${outboxWriteSql(p, 'message')}
   SELECT EXISTS (SELECT 1 FROM message) AS message_written, ${OUTBOX_WRITTEN_COLUMNS}
     FROM (SELECT 1) one
     LEFT JOIN (${OUTBOX_WRITTEN}) ON true`,
);

/**
 * Messages below an id whose entities are still to be detected, newest first (the ones read most are
 * found first). The partial index messages_detection_pending holds exactly these rows.
 */
const DETECTION_PENDING = namedStatement(
  'bot_api_message_detection_pending',
  `SELECT id, text, entities FROM messages
    WHERE detected_entities IS NULL AND id < $1::bigint ORDER BY id DESC LIMIT $2`,
);

/**
 * What detection found in those messages, stored where nothing was stored meanwhile and the text is
 * still the one it was found in (a writer may have changed it since it was read).
 */
const STORE_DETECTED = namedStatement(
  'bot_api_message_store_detected',
  `UPDATE messages m SET detected_entities = d.found, detected_text_md5 = d.md5
     FROM unnest($1::bigint[], $2::jsonb[], $3::uuid[]) AS d(id, found, md5)
    WHERE m.id = d.id AND m.detected_entities IS NULL AND md5(m.text)::uuid IS NOT DISTINCT FROM d.md5`,
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

/**
 * What a member's write or reservation found missing: the chat (or the sender's active membership
 * in it), or the live message it replies to.
 */
export type MissingForMember = 'chat' | 'message';

/** Every statement on messages; the rules that answer 404 or unpin a deleted message are MessagesService's. */
/** The columns of a new message, with the defaults of what the input leaves out; its text's entities detected now. */
function newMessageFields(input: NewMessage) {
  return {
    chatId: input.chatId,
    senderId: input.senderId,
    kind: input.kind,
    ...textColumns(input.text ?? null, input.entities ?? []),
    fileId: input.fileId ?? null,
    replyToMessageId: input.replyToMessageId ?? null,
    mentions: input.mentions ?? [],
    metadata: input.metadata ?? {},
    replyMarkup: input.replyMarkup ?? null,
  };
}

@Injectable()
export class MessagesStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

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
    const message = manager.create(Message, newMessageFields(input));
    return manager.getRepository(Message).save(message);
  }

  /**
   * Writes the message if its sender is an active member of the chat and its reply target is a live
   * message of that chat, else says which is missing. One statement: on the pool it is its own
   * transaction; given a transaction's manager it joins that transaction.
   */
  async insertAsMember(on: DataSource | EntityManager, input: NewMessage): Promise<WrittenMessage | MissingForMember> {
    if (!isUuid(input.chatId)) return 'chat';
    const replyTo = input.replyToMessageId ?? null;
    if (input.replyToMessageId != null && parseMessageId(replyTo) === null) return 'message';
    const message = { ...newMessageFields(input), editedAt: null, deletedAt: null };
    const { rows } = await runNamed<InsertAsMemberRow>(on, INSERT_AS_MEMBER, messageColumnValues(message));
    const row = rows[0];
    if (!row) return 'chat';
    if (!row.reply_ok || row.id === null || row.created_at === null) return 'message';
    return {
      message: { ...message, id: Number(row.id), createdAt: row.created_at },
      chat: { id: input.chatId, type: row.type, title: row.title },
      sender: { id: input.senderId, name: row.name, username: row.username, isBot: row.is_bot },
    };
  }

  /** Step one of a person's message (see RESERVE_AS_MEMBER), or what is missing: the membership or a live reply target. */
  async reserveAsMember(
    on: DataSource | EntityManager,
    chatId: string,
    senderId: string,
    replyToMessageId: number | null,
  ): Promise<ReservedMessage | MissingForMember> {
    if (!isUuid(chatId)) return 'chat';
    if (replyToMessageId !== null && parseMessageId(replyToMessageId) === null) return 'message';
    const { rows } = await runNamed<ReservedRow>(on, RESERVE_AS_MEMBER, [chatId, senderId, replyToMessageId]);
    const row = rows[0];
    if (!row) return 'chat';
    if (replyToMessageId !== null && !row.reply_found) return 'message';
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

  /**
   * Step two: the message and its Updates in one statement, with the Updates written; null when
   * nothing was written because the sender left the chat meanwhile.
   */
  async insertReserved(
    on: DataSource | EntityManager,
    message: Message,
    updates: UpdateColumns | null,
  ): Promise<WrittenUpdateRow[] | null> {
    const { rows } = await runNamed<WrittenUpdateRow & { message_written: boolean }>(
      on,
      INSERT_RESERVED,
      INSERT_RESERVED.values({
        id: message.id,
        created_at: message.createdAt,
        ...messageColumns(message),
        ...(updates ?? NO_UPDATES),
      }),
    );
    if (!rows[0]?.message_written) return null;
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

  /** A live message of the chat, or null (unknown, deleted, or of another chat); `lock` serialises edits and deletions of it. */
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

  /** The live messages of the chat among these ids. */
  liveInChat(manager: EntityManager, chatId: string, ids: number[]): Promise<Message[]> {
    return manager.getRepository(Message).findBy({ id: In(ids), chatId, deletedAt: IsNull() });
  }

  /** Soft delete: replies and receipts keep their reference. */
  async markDeleted(manager: EntityManager, message: Message): Promise<Date> {
    const at = new Date();
    message.deletedAt = at;
    await manager.getRepository(Message).save(message);
    return at;
  }

  /** Up to `limit` messages below the id `before` whose entities are still to be detected, newest first. */
  async detectionPending(before: bigint, limit: number): Promise<Array<Pick<Message, 'id' | 'text' | 'entities'>>> {
    const { rows } = await runNamed<{ id: string; text: string | null; entities: MessageEntity[] }>(
      this.dataSource,
      DETECTION_PENDING,
      [before.toString(), limit],
    );
    return rows.map((row) => ({ id: Number(row.id), text: row.text, entities: row.entities }));
  }

  /** Stores what detection found (see STORE_DETECTED); answers how many messages took it. */
  async storeDetected(found: Array<Pick<Message, 'id' | 'detectedEntities' | 'detectedTextMd5'>>): Promise<number> {
    if (found.length === 0) return 0;
    const { rowCount } = await runNamed(this.dataSource, STORE_DETECTED, [
      found.map((message) => message.id),
      found.map((message) => JSON.stringify(message.detectedEntities ?? [])),
      found.map((message) => message.detectedTextMd5),
    ]);
    return rowCount ?? 0;
  }

  async senderOf(manager: EntityManager, messageId: number | null): Promise<string | null> {
    if (messageId === null) return null;
    const rows: Array<{ sender_id: string }> = await manager.query(`SELECT sender_id FROM messages WHERE id = $1`, [
      messageId,
    ]);
    return rows[0]?.sender_id ?? null;
  }
}

/** A message's written columns as statement parameters, from chat_id to detected_text_md5. */
interface MessageColumns {
  chat_id: string;
  sender_id: string;
  kind: MessageKind;
  text: string | null;
  file_id: string | null;
  reply_to_message_id: number | null;
  mentions: string;
  metadata: string;
  reply_markup: string | null;
  entities: string;
  detected_entities: string | null;
  detected_text_md5: string | null;
}

function messageColumns(message: Pick<Message, MessageColumn>): MessageColumns {
  return {
    chat_id: message.chatId,
    sender_id: message.senderId,
    kind: message.kind,
    text: message.text,
    file_id: message.fileId,
    reply_to_message_id: message.replyToMessageId,
    mentions: JSON.stringify(message.mentions),
    metadata: JSON.stringify(message.metadata),
    reply_markup: message.replyMarkup === null ? null : JSON.stringify(message.replyMarkup),
    entities: JSON.stringify(message.entities),
    detected_entities: message.detectedEntities === null ? null : JSON.stringify(message.detectedEntities),
    detected_text_md5: message.detectedTextMd5,
  };
}

/** The same columns in the order INSERT_AS_MEMBER numbers them ($1 … $12). */
function messageColumnValues(message: Pick<Message, MessageColumn>): unknown[] {
  const columns = messageColumns(message);
  return [
    columns.chat_id,
    columns.sender_id,
    columns.kind,
    columns.text,
    columns.file_id,
    columns.reply_to_message_id,
    columns.mentions,
    columns.metadata,
    columns.reply_markup,
    columns.entities,
    columns.detected_entities,
    columns.detected_text_md5,
  ];
}

type MessageColumn =
  | 'chatId'
  | 'senderId'
  | 'kind'
  | 'text'
  | 'entities'
  | 'detectedEntities'
  | 'detectedTextMd5'
  | 'fileId'
  | 'replyToMessageId'
  | 'mentions'
  | 'metadata'
  | 'replyMarkup';
