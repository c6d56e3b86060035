import { Injectable } from '@nestjs/common';
import { db, prepared, type Messages } from '@app/bot-schema';
import { Database, execute, executeAll, executeFirst, isUuid, SqlTarget } from '@app/platform';
import {
  NO_UPDATES,
  UpdateColumns,
  withOutboxWritten,
  WRITTEN_UPDATE_COLUMNS,
  WrittenUpdateRow,
} from '@app/bot-delivery';
import { sql, type Selectable } from 'kysely';
import { chatBotsJson, ChatBot, toChatBot } from '../chats/chats.store';
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

/** The columns a message is written with, by both writes (the reserved one adds its id and time). */
const MESSAGE_COLUMNS = [
  'chat_id',
  'sender_id',
  'kind',
  'text',
  'file_id',
  'reply_to_message_id',
  'mentions',
  'metadata',
  'reply_markup',
  'entities',
  'detected_entities',
  'detected_text_md5',
] as const;

/** A literal in the SQL, as before: a prepared statement's generic plan uses the partial index on active members only for a literal. */
const ACTIVE = sql.lit('active' as const);

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

/** What the JSON and kind columns hold, as the writers of this store write them. */
type MessageJson = {
  kind: MessageKind;
  entities: MessageEntity[];
  detected_entities: MessageEntity[] | null;
  mentions: string[];
  metadata: MessageMetadata;
  reply_markup: ReplyMarkup | null;
};

/**
 * The whole send of a member in one statement: the sender's active membership, the reply target
 * (live, same chat) and the insert are checked and done atomically, and the chat and the sender's
 * directory entry come back with the new row, so nothing is read again afterwards.
 */
const INSERT_AS_MEMBER = prepared('bot_api_message_insert_as_member', (db, p: MessageColumns) =>
  db
    .with('member', (db) =>
      db
        .selectFrom('chats as c')
        .innerJoin('chat_members as cm', (join) =>
          join.onRef('cm.chat_id', '=', 'c.id').on('cm.user_id', '=', p.sender_id).on('cm.state', '=', ACTIVE),
        )
        .innerJoin('users as u', 'u.id', 'cm.user_id')
        .select(['c.id', 'c.type', 'c.title', 'u.name', 'u.username', 'u.is_bot'])
        .where('c.id', '=', p.chat_id),
    )
    .with('reply', (db) =>
      db
        .selectFrom(sql<{ one: number }>`(SELECT 1)`.as('one'))
        .leftJoin('messages as r', (join) =>
          join
            .on('r.id', '=', sql<string>`${p.reply_to_message_id}::bigint`)
            .on('r.chat_id', '=', p.chat_id)
            .on('r.deleted_at', 'is', null),
        )
        .select(sql<boolean>`${p.reply_to_message_id}::bigint IS NULL OR r.id IS NOT NULL`.as('ok')),
    )
    .with('written', (db) =>
      db
        .insertInto('messages')
        .columns([...MESSAGE_COLUMNS])
        .expression((eb) =>
          eb
            .selectFrom(['member', 'reply'])
            .select([
              'member.id',
              sql<string>`${p.sender_id}::varchar`.as('sender_id'),
              sql<string>`${p.kind}::varchar`.as('kind'),
              sql<string | null>`${p.text}::text`.as('text'),
              sql<string | null>`${p.file_id}::uuid`.as('file_id'),
              sql<string | null>`${p.reply_to_message_id}::bigint`.as('reply_to_message_id'),
              sql<unknown>`${p.mentions}::jsonb`.as('mentions'),
              sql<unknown>`${p.metadata}::jsonb`.as('metadata'),
              sql<unknown>`${p.reply_markup}::jsonb`.as('reply_markup'),
              sql<unknown>`${p.entities}::jsonb`.as('entities'),
              sql<unknown>`${p.detected_entities}::jsonb`.as('detected_entities'),
              sql<string | null>`${p.detected_text_md5}::uuid`.as('detected_text_md5'),
            ])
            .where((eb) => eb.ref('reply.ok')),
        )
        .returning(['id', 'created_at']),
    )
    .selectFrom('member')
    .crossJoin('reply')
    .leftJoin('written', (join) => join.onTrue())
    .select([
      'member.type',
      'member.title',
      'member.name',
      'member.username',
      'member.is_bot',
      'reply.ok as reply_ok',
      'written.id',
      'written.created_at',
    ]),
);

/**
 * A person's message, step one of two: the membership, the reply target and the chat's bots are
 * read, and the message id and time are drawn, so its Updates can be built before it is written.
 */
const RESERVE_AS_MEMBER = prepared(
  'bot_api_message_reserve_as_member',
  (db, p: { chatId: string; senderId: string; replyToMessageId: number | null }) =>
    db
      .selectFrom('chats as c')
      .innerJoin('chat_members as cm', (join) =>
        join.onRef('cm.chat_id', '=', 'c.id').on('cm.user_id', '=', p.senderId).on('cm.state', '=', ACTIVE),
      )
      .innerJoin('users as u', 'u.id', 'cm.user_id')
      .leftJoin('messages as r', (join) =>
        join
          .on('r.id', '=', sql<string>`${p.replyToMessageId}::bigint`)
          .onRef('r.chat_id', '=', 'c.id')
          .on('r.deleted_at', 'is', null),
      )
      .select([
        'c.type',
        'c.title',
        'u.name',
        'u.username',
        'u.is_bot',
        'u.is_virtual',
        sql<boolean>`r.id IS NOT NULL`.as('reply_found'),
        'r.sender_id as reply_to_sender_id',
        sql<string>`nextval(pg_get_serial_sequence('messages', 'id'))`.as('id'),
        sql<Date>`now()`.as('created_at'),
        chatBotsJson(sql.ref('c.id')).$asScalar().$notNull().as('bots'),
      ])
      .where('c.id', '=', p.chatId),
);

/**
 * Step two: the message under its reserved id with all its Updates and outbox rows, in one statement
 * (so one transaction), written only while the sender is still an active member of the chat.
 */
const INSERT_RESERVED = prepared(
  'bot_api_message_insert_reserved',
  (db, p: MessageColumns & { id: number; created_at: Date } & UpdateColumns) =>
    withOutboxWritten(
      db.with('message', (db) =>
        db
          .insertInto('messages')
          .columns(['id', ...MESSAGE_COLUMNS, 'created_at'])
          .expression(
            // The id was drawn by RESERVE_AS_MEMBER from the identity's own sequence.
            sql`OVERRIDING SYSTEM VALUE ${db
              .selectNoFrom([
                sql<string>`${p.id}::bigint`.as('id'),
                sql<string>`${p.chat_id}::uuid`.as('chat_id'),
                sql<string>`${p.sender_id}::varchar`.as('sender_id'),
                sql<string>`${p.kind}::varchar`.as('kind'),
                sql<string | null>`${p.text}::text`.as('text'),
                sql<string | null>`${p.file_id}::uuid`.as('file_id'),
                sql<string | null>`${p.reply_to_message_id}::bigint`.as('reply_to_message_id'),
                sql<unknown>`${p.mentions}::jsonb`.as('mentions'),
                sql<unknown>`${p.metadata}::jsonb`.as('metadata'),
                sql<unknown>`${p.reply_markup}::jsonb`.as('reply_markup'),
                sql<unknown>`${p.entities}::jsonb`.as('entities'),
                sql<unknown>`${p.detected_entities}::jsonb`.as('detected_entities'),
                sql<string | null>`${p.detected_text_md5}::uuid`.as('detected_text_md5'),
                sql<Date>`${p.created_at}::timestamptz`.as('created_at'),
              ])
              .where((eb) =>
                eb.exists(
                  eb
                    .selectFrom('chat_members')
                    .select(sql.lit(1).as('one'))
                    .where('chat_id', '=', sql<string>`${p.chat_id}::uuid`)
                    .where('user_id', '=', sql<string>`${p.sender_id}::varchar`)
                    .where('state', '=', ACTIVE),
                ),
              )}`,
          )
          .returning('id'),
      ),
      p,
      'message',
    )
      .selectFrom(sql<{ one: number }>`(SELECT 1)`.as('one'))
      .leftJoin(
        (eb) =>
          eb
            .selectFrom('written_updates as w')
            .leftJoin('delivered as d', 'd.update_id', 'w.update_id')
            .select(WRITTEN_UPDATE_COLUMNS)
            .as('o'),
        (join) => join.onTrue(),
      )
      .select((eb) => [
        eb.exists(eb.selectFrom('message').select(sql.lit(1).as('one'))).as('message_written'),
        'o.update_seq',
        'o.update_id',
        'o.bot_id',
        'o.type',
        'o.delivery_id',
        'o.delivery_created_at',
      ]),
);

/**
 * Messages below an id whose entities are still to be detected, newest first (the ones read most are
 * found first). The partial index messages_detection_pending holds exactly these rows.
 */
const DETECTION_PENDING = prepared('bot_api_message_detection_pending', (db, p: { before: string; limit: number }) =>
  db
    .selectFrom('messages')
    .select(['id', 'text', 'entities'])
    .where('detected_entities', 'is', null)
    .where('id', '<', sql<string>`${p.before}::bigint`)
    .orderBy('id', 'desc')
    .limit(p.limit)
    .$castTo<Pick<MessageRow, 'id' | 'text' | 'entities'>>(),
);

/**
 * What detection found in those messages, stored where nothing was stored meanwhile and the text is
 * still the one it was found in (a writer may have changed it since it was read).
 */
const STORE_DETECTED = prepared(
  'bot_api_message_store_detected',
  (db, p: { ids: number[]; found: string[]; md5s: Array<string | null> }) =>
    db
      .updateTable('messages as m')
      .from(
        sql<{
          id: string;
          found: unknown;
          md5: string | null;
        }>`unnest(${p.ids}::bigint[], ${p.found}::jsonb[], ${p.md5s}::uuid[])`.as<'d'>(sql`d(id, found, md5)`),
      )
      .set({ detected_entities: sql`d.found`, detected_text_md5: sql`d.md5` })
      .whereRef('m.id', '=', 'd.id')
      .where('m.detected_entities', 'is', null)
      .where(sql<boolean>`md5(m.text)::uuid IS NOT DISTINCT FROM d.md5`),
);

/** A message row as this store reads it, its JSON columns typed as written. */
function selectMessages() {
  return db.selectFrom('messages').selectAll().$castTo<MessageRow>();
}

type MessageRow = Omit<Selectable<Messages>, keyof MessageJson> & MessageJson;

function toMessage(row: MessageRow): Message {
  return {
    id: Number(row.id),
    chatId: row.chat_id,
    senderId: row.sender_id,
    kind: row.kind,
    text: row.text,
    entities: row.entities,
    detectedEntities: row.detected_entities,
    detectedTextMd5: row.detected_text_md5,
    fileId: row.file_id,
    replyToMessageId: row.reply_to_message_id === null ? null : Number(row.reply_to_message_id),
    mentions: row.mentions,
    metadata: row.metadata,
    replyMarkup: row.reply_markup,
    createdAt: row.created_at,
    editedAt: row.edited_at,
    deletedAt: row.deleted_at,
  };
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

/** Every statement on messages; the rules that answer 404 or unpin a deleted message are MessagesService's. */
@Injectable()
export class MessagesStore {
  constructor(private readonly database: Database) {}

  /** Live messages of the chat, newest first, with how many there are. */
  async page(chatId: string, skip: number, take: number): Promise<[Message[], number]> {
    const live = db.selectFrom('messages').where('chat_id', '=', chatId).where('deleted_at', 'is', null);
    const rows = await executeAll(
      this.database,
      selectMessages()
        .where('chat_id', '=', chatId)
        .where('deleted_at', 'is', null)
        .orderBy('id', 'desc')
        .offset(skip)
        .limit(take),
    );
    const counted = await executeFirst(this.database, live.select(sql<string>`count(*)`.as('count')));
    return [rows.map(toMessage), Number(counted!.count)];
  }

  /** Writes the message in the transaction (or on the pool), and answers it as stored. */
  async insert(on: SqlTarget, input: NewMessage): Promise<Message> {
    const columns = messageColumns(newMessageFields(input));
    const row = await executeFirst(on, db.insertInto('messages').values(columns).returningAll().$castTo<MessageRow>());
    return toMessage(row!);
  }

  /**
   * Writes the message if its sender is an active member of the chat and its reply target is a live
   * message of that chat, else says which is missing. One statement: on the pool it is its own
   * transaction; given a transaction it joins that transaction.
   */
  async insertAsMember(on: SqlTarget, input: NewMessage): Promise<WrittenMessage | MissingForMember> {
    if (!isUuid(input.chatId)) return 'chat';
    const replyTo = input.replyToMessageId ?? null;
    if (input.replyToMessageId != null && parseMessageId(replyTo) === null) return 'message';
    const message = { ...newMessageFields(input), editedAt: null, deletedAt: null };
    const row = await INSERT_AS_MEMBER.first(on, messageColumns(message));
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
    on: SqlTarget,
    chatId: string,
    senderId: string,
    replyToMessageId: number | null,
  ): Promise<ReservedMessage | MissingForMember> {
    if (!isUuid(chatId)) return 'chat';
    if (replyToMessageId !== null && parseMessageId(replyToMessageId) === null) return 'message';
    const row = await RESERVE_AS_MEMBER.first(on, { chatId, senderId, replyToMessageId });
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
    on: SqlTarget,
    message: Message,
    updates: UpdateColumns | null,
  ): Promise<WrittenUpdateRow[] | null> {
    const rows = await INSERT_RESERVED.all(on, {
      id: message.id,
      created_at: message.createdAt,
      ...messageColumns(message),
      ...(updates ?? NO_UPDATES),
    });
    if (!rows[0]?.message_written) return null;
    return rows.filter((row): row is WrittenUpdateRow & typeof row => row.update_id !== null);
  }

  /** The message with this id in any chat, deleted or not; null for an id that is no message's. */
  async findById(on: SqlTarget, messageId: unknown): Promise<Message | null> {
    const id = parseMessageId(messageId);
    if (id === null) return null;
    const row = await executeFirst(on, selectMessages().where('id', '=', String(id)));
    return row ? toMessage(row) : null;
  }

  /** Writes what an edit may change: the text and its entities, kind, file, metadata, buttons and edit time. */
  async save(on: SqlTarget, message: Message): Promise<void> {
    const columns = messageColumns(message);
    await execute(
      on,
      db
        .updateTable('messages')
        .set({
          kind: columns.kind,
          text: columns.text,
          entities: columns.entities,
          detected_entities: columns.detected_entities,
          detected_text_md5: columns.detected_text_md5,
          file_id: columns.file_id,
          metadata: columns.metadata,
          reply_markup: columns.reply_markup,
          edited_at: message.editedAt,
        })
        .where('id', '=', String(message.id)),
    );
  }

  /** A live message of the chat, or null (unknown, deleted, or of another chat); `lock` serialises edits and deletions of it. */
  async findLive(on: SqlTarget, chatId: string, messageId: unknown, lock = false): Promise<Message | null> {
    const id = parseMessageId(messageId);
    if (id === null) return null;
    const query = selectMessages().where('id', '=', String(id)).where('chat_id', '=', chatId);
    const row = await executeFirst(on, lock ? query.forUpdate() : query);
    return row && !row.deleted_at ? toMessage(row) : null;
  }

  /** The live messages of the chat among these ids. */
  async liveInChat(on: SqlTarget, chatId: string, ids: number[]): Promise<Message[]> {
    if (ids.length === 0) return [];
    const rows = await executeAll(
      on,
      selectMessages().where('id', 'in', ids.map(String)).where('chat_id', '=', chatId).where('deleted_at', 'is', null),
    );
    return rows.map(toMessage);
  }

  /** Soft delete: replies and receipts keep their reference. */
  async markDeleted(on: SqlTarget, message: Message, at = new Date()): Promise<Date> {
    await execute(on, db.updateTable('messages').set({ deleted_at: at }).where('id', '=', String(message.id)));
    message.deletedAt = at;
    return at;
  }

  /** Up to `limit` messages below the id `before` whose entities are still to be detected, newest first. */
  async detectionPending(before: bigint, limit: number): Promise<Array<Pick<Message, 'id' | 'text' | 'entities'>>> {
    const rows = await DETECTION_PENDING.all(this.database, { before: before.toString(), limit });
    return rows.map((row) => ({ id: Number(row.id), text: row.text, entities: row.entities }));
  }

  /** Stores what detection found (see STORE_DETECTED); answers how many messages took it. */
  async storeDetected(found: Array<Pick<Message, 'id' | 'detectedEntities' | 'detectedTextMd5'>>): Promise<number> {
    if (found.length === 0) return 0;
    const { rowCount } = await STORE_DETECTED.run(this.database, {
      ids: found.map((message) => message.id),
      found: found.map((message) => JSON.stringify(message.detectedEntities ?? [])),
      md5s: found.map((message) => message.detectedTextMd5),
    });
    return rowCount ?? 0;
  }

  async senderOf(on: SqlTarget, messageId: number | null): Promise<string | null> {
    if (messageId === null) return null;
    const row = await executeFirst(
      on,
      db.selectFrom('messages').select('sender_id').where('id', '=', String(messageId)),
    );
    return row?.sender_id ?? null;
  }
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
