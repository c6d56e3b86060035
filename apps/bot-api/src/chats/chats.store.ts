import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { botAvailableSql } from '@app/bot-delivery';
import { isUuid } from '@app/platform';
import { DataSource, EntityManager, In } from 'typeorm';
import { Chat } from './entities/chat.entity';
import { ChatJoinRequest } from './entities/chat-join-request.entity';
import { ChatMember, MemberRank } from './entities/chat-member.entity';
import { BotErrors } from '../bot-errors';
import type { MemberStatus } from './dto/chat.view';
import type { UpdateRecipient } from '../updates/update-event';

export interface Membership {
  chat: Chat;
  member: ChatMember;
}

/** A chat's columns that owners, administrators and governing bots may change. */
export type ChatChanges = Partial<Pick<Chat, 'title' | 'description' | 'photoUrl' | 'pinnedMessageId'>>;

/** What a membership change writes. */
export type MemberChanges = Partial<Pick<ChatMember, 'rank' | 'state' | 'banReason'>>;

/** A bot that is an active member of a chat, with what fan-out and privacy need. */
export interface ChatBot extends UpdateRecipient {
  username: string | null;
  systemUserId: string;
  rank: MemberRank;
}

export interface ChatBotRow {
  id: string;
  scopes: string[];
  allowed_updates: string[] | null;
  username: string | null;
  system_user_id: string;
  rank: MemberRank;
}

export function toChatBot(row: ChatBotRow): ChatBot {
  return {
    id: row.id,
    scopes: row.scopes,
    allowedUpdates: row.allowed_updates,
    username: row.username,
    systemUserId: row.system_user_id,
    rank: row.rank,
  };
}

const CHAT_BOT_COLUMNS = `b.id, b.scopes, s.allowed_updates, b.username, b.system_user_id`;

/**
 * SQL expression: the ChatBotRow objects (a JSON array) of the available bots that are active members
 * of the chat `chatIdSql`, for statements that read them together with other rows.
 */
export function botsInChatJson(chatIdSql: string): string {
  return `(SELECT coalesce(json_agg(json_build_object('id', b.id, 'scopes', b.scopes,
            'allowed_updates', s.allowed_updates, 'username', b.username, 'system_user_id', b.system_user_id,
            'rank', cm.rank) ORDER BY b.id), '[]'::json)
       FROM chat_members cm JOIN bots b ON b.system_user_id = cm.user_id JOIN bot_delivery_settings s ON s.bot_id = b.id
      WHERE cm.chat_id = ${chatIdSql} AND cm.state = 'active' AND ${botAvailableSql('b')})`;
}

export function isManager(member: Pick<ChatMember, 'rank' | 'state'>): boolean {
  return member.state === 'active' && (member.rank === 'owner' || member.rank === 'administrator');
}

/** Status as Updates and member reads show it: the rank while active, else the state; no row is `left`. */
export function memberStatus(member: Pick<ChatMember, 'rank' | 'state'> | null): MemberStatus {
  if (!member) return 'left';
  return member.state === 'active' ? member.rank : member.state;
}

/** Chats, their members and join requests. */
@Injectable()
export class ChatsStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * The chat and the caller's active membership. A chat the caller is not an active member of answers
   * 404 exactly like a chat that does not exist. `lock` takes the chat row FOR UPDATE so membership
   * changes of one chat are serialised.
   */
  async requireActiveMember(manager: EntityManager, chatId: string, userId: string, lock = false): Promise<Membership> {
    const notFound = BotErrors.error('NOT_FOUND', 'Chat not found');
    if (!isUuid(chatId)) throw notFound;
    const chat = await manager.getRepository(Chat).findOne({
      where: { id: chatId },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (!chat) throw notFound;
    const member = await manager.getRepository(ChatMember).findOneBy({ chatId, userId });
    if (!member || member.state !== 'active') throw notFound;
    return { chat, member };
  }

  /** Whether two users are active members of one chat: what lets a bot look a user up. */
  async shareAChat(manager: EntityManager, userId: string, otherId: string): Promise<boolean> {
    const rows: Array<{ shared: boolean }> = await manager.query(
      `SELECT EXISTS (
         SELECT 1 FROM chat_members a JOIN chat_members b ON b.chat_id = a.chat_id
          WHERE a.user_id = $1 AND a.state = 'active' AND b.user_id = $2 AND b.state = 'active'
       ) AS shared`,
      [userId, otherId],
    );
    return rows[0]?.shared === true;
  }

  /** Null for an id that is not a chat's. */
  async find(manager: EntityManager, chatId: string): Promise<Chat | null> {
    return isUuid(chatId) ? manager.getRepository(Chat).findOneBy({ id: chatId }) : null;
  }

  createGroup(manager: EntityManager, title: string, createdBy: string): Promise<Chat> {
    return manager.getRepository(Chat).save(manager.create(Chat, { type: 'group', title, createdBy }));
  }

  /** The one private chat of a user and a bot's system user; `created` is false when it existed already. */
  async openPrivate(
    manager: EntityManager,
    userId: string,
    botUserId: string,
  ): Promise<{ chat: Chat; created: boolean }> {
    const privateKey = `${userId}|${botUserId}`;
    const inserted: Array<{ id: string }> = await manager.query(
      `INSERT INTO chats (type, private_key, created_by) VALUES ('private', $1, $2)
       ON CONFLICT (private_key) DO NOTHING RETURNING id`,
      [privateKey, userId],
    );
    const chat = await manager.getRepository(Chat).findOneByOrFail({ privateKey });
    return { chat, created: inserted.length > 0 };
  }

  async update(manager: EntityManager, chatId: string, changes: ChatChanges): Promise<void> {
    await manager.getRepository(Chat).update({ id: chatId }, changes);
  }

  /** Pins a live message of the chat; false when the chat has no such message. */
  async pin(manager: EntityManager, chatId: string, messageId: number): Promise<boolean> {
    const [pinned]: [unknown[], number] = await manager.query(
      `UPDATE chats SET pinned_message_id = $2, updated_at = now()
        WHERE id = $1 AND EXISTS (SELECT 1 FROM messages WHERE id = $2 AND chat_id = $1 AND deleted_at IS NULL)
        RETURNING id`,
      [chatId, messageId],
    );
    return pinned.length > 0;
  }

  member(manager: EntityManager, chatId: string, userId: string): Promise<ChatMember | null> {
    return manager.getRepository(ChatMember).findOneBy({ chatId, userId });
  }

  countActive(chatId: string): Promise<number> {
    return this.dataSource.getRepository(ChatMember).countBy({ chatId, state: 'active' });
  }

  /** Owner and administrators, longest-standing first. */
  managers(manager: EntityManager, chatId: string): Promise<ChatMember[]> {
    return manager.getRepository(ChatMember).find({
      where: { chatId, state: 'active', rank: In(['owner', 'administrator']) },
      order: { joinedAt: 'ASC' },
    });
  }

  /** New active members of a chat that has none of these users yet. */
  addMembers(
    manager: EntityManager,
    chatId: string,
    members: ReadonlyArray<{ userId: string; rank: MemberRank }>,
  ): Promise<ChatMember[]> {
    return manager
      .getRepository(ChatMember)
      .save(members.map(({ userId, rank }) => manager.create(ChatMember, { chatId, userId, rank, state: 'active' })));
  }

  /** Writes the membership of the user, a new row when `existing` is null. */
  async setMembership(
    manager: EntityManager,
    chatId: string,
    userId: string,
    existing: ChatMember | null,
    changes: MemberChanges,
  ): Promise<ChatMember> {
    const member = existing ?? manager.create(ChatMember, { chatId, userId });
    Object.assign(member, changes);
    await manager.getRepository(ChatMember).save(member);
    return member;
  }

  /** A pending join request of the user; undefined when one is pending already. */
  async openJoinRequest(
    manager: EntityManager,
    chatId: string,
    userId: string,
  ): Promise<{ id: string; created_at: Date } | undefined> {
    const rows: Array<{ id: string; created_at: Date }> = await manager.query(
      `INSERT INTO chat_join_requests (chat_id, user_id) VALUES ($1, $2)
       ON CONFLICT (chat_id, user_id) WHERE status = 'pending' DO NOTHING RETURNING id, created_at`,
      [chatId, userId],
    );
    return rows[0];
  }

  joinRequest(manager: EntityManager, id: string): Promise<ChatJoinRequest> {
    return manager.getRepository(ChatJoinRequest).findOneByOrFail({ id });
  }

  /** Settles the user's pending join request; false when none was pending. */
  async settleJoinRequest(
    manager: EntityManager,
    chatId: string,
    userId: string,
    status: 'approved' | 'declined',
  ): Promise<boolean> {
    // UPDATE … RETURNING through TypeORM yields [rows, affectedCount].
    const [settled]: [unknown[], number] = await manager.query(
      `UPDATE chat_join_requests SET status = $3
        WHERE chat_id = $1 AND user_id = $2 AND status = 'pending' RETURNING id`,
      [chatId, userId, status],
    );
    return settled.length > 0;
  }

  /** Available bots that are active members of the chat. */
  async botsInChat(manager: EntityManager, chatId: string): Promise<ChatBot[]> {
    const rows: ChatBotRow[] = await manager.query(
      `SELECT ${CHAT_BOT_COLUMNS}, cm.rank
         FROM chat_members cm JOIN bots b ON b.system_user_id = cm.user_id JOIN bot_delivery_settings s ON s.bot_id = b.id
        WHERE cm.chat_id = $1 AND cm.state = 'active' AND ${botAvailableSql('b')}
        ORDER BY b.id`,
      [chatId],
    );
    return rows.map(toChatBot);
  }

  /** The available bot speaking as this user, if the user is a bot's system user. */
  async botOfUser(manager: EntityManager, userId: string, chatId: string): Promise<ChatBot | null> {
    const rows: ChatBotRow[] = await manager.query(
      `SELECT ${CHAT_BOT_COLUMNS}, COALESCE(cm.rank, 'member') AS rank
         FROM bots b JOIN bot_delivery_settings s ON s.bot_id = b.id
         LEFT JOIN chat_members cm ON cm.user_id = b.system_user_id AND cm.chat_id = $2
        WHERE b.system_user_id = $1 AND ${botAvailableSql('b')}`,
      [userId, chatId],
    );
    return rows.length > 0 ? toChatBot(rows[0]) : null;
  }
}
