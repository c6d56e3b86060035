import { Injectable } from '@nestjs/common';
import { botAvailable } from '@app/bot-delivery';
import { db, type BotDeliverySettings, type Bots, type ChatMembers } from '@app/bot-schema';
import { Database, execute, executeAll, executeFirst, isUuid, SqlTarget } from '@app/platform';
import { sql, type Expression, type Selectable } from 'kysely';
import type { Chat } from './entities/chat.entity';
import type { ChatJoinRequest } from './entities/chat-join-request.entity';
import type { ChatMember, MemberRank } from './entities/chat-member.entity';
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

/** A bot of a chat as the statements read it: the bot's system user is known, as it is a member. */
export type ChatBotRow = Pick<Selectable<Bots>, 'id' | 'scopes' | 'username'> &
  Pick<Selectable<BotDeliverySettings>, 'allowed_updates'> & { system_user_id: string; rank: ChatMembers['rank'] };

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

/** A literal, so that a prepared statement's generic plan can use the partial index on active members. */
const ACTIVE_MEMBER = sql.lit('active' as const);

/** The available bots that are active members of the chat `chatId`, with their delivery settings. */
function activeBotMembers(chatId: Expression<string> | string) {
  return (
    db
      .selectFrom('chat_members as cm')
      .innerJoin('bots as b', 'b.system_user_id', 'cm.user_id')
      .innerJoin('bot_delivery_settings as s', 's.bot_id', 'b.id')
      .where('cm.chat_id', '=', chatId)
      .where('cm.state', '=', ACTIVE_MEMBER)
      // "A bot is available" is @app/bot-delivery's one rule, written as literals a generic plan can use.
      .where(botAvailable('b'))
  );
}

/**
 * The ChatBotRow objects (a JSON array, ordered by bot id) of the available bots that are active
 * members of the chat `chatId`, as a scalar subquery for statements that read them with other rows.
 */
export function chatBotsJson(chatId: Expression<string>) {
  return activeBotMembers(chatId).select(
    sql<ChatBotRow[]>`coalesce(json_agg(json_build_object('id', b.id, 'scopes', b.scopes,
            'allowed_updates', s.allowed_updates, 'username', b.username, 'system_user_id', b.system_user_id,
            'rank', cm.rank) ORDER BY b.id), '[]'::json)`.as('bots'),
  );
}

export function isManager(member: Pick<ChatMember, 'rank' | 'state'>): boolean {
  return member.state === 'active' && (member.rank === 'owner' || member.rank === 'administrator');
}

/** Status as Updates and member reads show it: the rank while active, else the state; no row is `left`. */
export function memberStatus(member: Pick<ChatMember, 'rank' | 'state'> | null): MemberStatus {
  if (!member) return 'left';
  return member.state === 'active' ? member.rank : member.state;
}

const CHAT = [
  'id',
  'type',
  'title',
  'description',
  'photo_url as photoUrl',
  'pinned_message_id as pinnedMessageId',
  'private_key as privateKey',
  'created_by as createdBy',
  'created_at as createdAt',
  'updated_at as updatedAt',
] as const;

const MEMBER = [
  'chat_id as chatId',
  'user_id as userId',
  'rank',
  'state',
  'ban_reason as banReason',
  'joined_at as joinedAt',
  'updated_at as updatedAt',
] as const;

/** Message ids are int8 (strings from pg) but plain numbers on the wire. */
function toChat(row: Omit<Chat, 'pinnedMessageId'> & { pinnedMessageId: string | null }): Chat {
  return { ...row, pinnedMessageId: row.pinnedMessageId === null ? null : Number(row.pinnedMessageId) };
}

function chatColumns(changes: ChatChanges) {
  const columns = {
    title: changes.title,
    description: changes.description,
    photo_url: changes.photoUrl,
    pinned_message_id: changes.pinnedMessageId,
  };
  return Object.fromEntries(Object.entries(columns).filter(([, value]) => value !== undefined)) as Partial<
    typeof columns
  >;
}

/** The changes that differ from the stored membership, as columns. */
function changedMemberColumns(member: ChatMember, changes: MemberChanges) {
  return {
    ...(changes.rank !== undefined && changes.rank !== member.rank ? { rank: changes.rank } : {}),
    ...(changes.state !== undefined && changes.state !== member.state ? { state: changes.state } : {}),
    ...(changes.banReason !== undefined && changes.banReason !== member.banReason
      ? { ban_reason: changes.banReason }
      : {}),
  };
}

/** Chats, their members and join requests. */
@Injectable()
export class ChatsStore {
  constructor(private readonly database: Database) {}

  /**
   * The chat and the caller's active membership. A chat the caller is not an active member of answers
   * 404 exactly like a chat that does not exist. `lock` takes the chat row FOR UPDATE so membership
   * changes of one chat are serialised.
   */
  async requireActiveMember(on: SqlTarget, chatId: string, userId: string, lock = false): Promise<Membership> {
    const notFound = BotErrors.error('NOT_FOUND', 'Chat not found');
    if (!isUuid(chatId)) throw notFound;
    const byId = db.selectFrom('chats').select(CHAT).where('id', '=', chatId).limit(1);
    const chat = await executeFirst(on, lock ? byId.forUpdate() : byId);
    if (!chat) throw notFound;
    const member = await this.member(on, chatId, userId);
    if (!member || member.state !== 'active') throw notFound;
    return { chat: toChat(chat), member };
  }

  /** Whether two users are active members of one chat: what lets a bot look a user up. */
  async shareAChat(on: SqlTarget, userId: string, otherId: string): Promise<boolean> {
    const row = await executeFirst(
      on,
      db.selectNoFrom((eb) =>
        eb
          .exists(
            eb
              .selectFrom('chat_members as a')
              .innerJoin('chat_members as b', 'b.chat_id', 'a.chat_id')
              .select(sql.lit(1).as('one'))
              .where('a.user_id', '=', userId)
              .where('a.state', '=', 'active')
              .where('b.user_id', '=', otherId)
              .where('b.state', '=', 'active'),
          )
          .as('shared'),
      ),
    );
    return row?.shared === true;
  }

  /** Null for an id that is not a chat's. */
  async find(on: SqlTarget, chatId: string): Promise<Chat | null> {
    if (!isUuid(chatId)) return null;
    const row = await executeFirst(on, db.selectFrom('chats').select(CHAT).where('id', '=', chatId).limit(1));
    return row ? toChat(row) : null;
  }

  async createGroup(on: SqlTarget, title: string, createdBy: string): Promise<Chat> {
    const row = await executeFirst(
      on,
      db.insertInto('chats').values({ type: 'group', title, created_by: createdBy }).returning(CHAT),
    );
    return toChat(row!);
  }

  /** The one private chat of a user and a bot's system user; `created` is false when it existed already. */
  async openPrivate(on: SqlTarget, userId: string, botUserId: string): Promise<{ chat: Chat; created: boolean }> {
    const privateKey = `${userId}|${botUserId}`;
    const inserted = await executeAll(
      on,
      db
        .insertInto('chats')
        .values({ type: 'private', private_key: privateKey, created_by: userId })
        .onConflict((oc) => oc.column('private_key').doNothing())
        .returning('id'),
    );
    const chat = await executeFirst(
      on,
      db.selectFrom('chats').select(CHAT).where('private_key', '=', privateKey).limit(1),
    );
    if (!chat) throw new Error(`the private chat ${privateKey} is missing`);
    return { chat: toChat(chat), created: inserted.length > 0 };
  }

  async update(on: SqlTarget, chatId: string, changes: ChatChanges): Promise<void> {
    await execute(
      on,
      db
        .updateTable('chats')
        .set({ ...chatColumns(changes), updated_at: sql<Date>`now()` })
        .where('id', '=', chatId),
    );
  }

  /** Pins a live message of the chat; false when the chat has no such message. */
  async pin(on: SqlTarget, chatId: string, messageId: number): Promise<boolean> {
    const pinned = await executeAll(
      on,
      db
        .updateTable('chats')
        .set({ pinned_message_id: messageId, updated_at: sql<Date>`now()` })
        .where('id', '=', chatId)
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('messages')
              .select(sql.lit(1).as('one'))
              .where('id', '=', String(messageId))
              .where('chat_id', '=', chatId)
              .where('deleted_at', 'is', null),
          ),
        )
        .returning('id'),
    );
    return pinned.length > 0;
  }

  async member(on: SqlTarget, chatId: string, userId: string): Promise<ChatMember | null> {
    const row = await executeFirst(
      on,
      db.selectFrom('chat_members').select(MEMBER).where('chat_id', '=', chatId).where('user_id', '=', userId).limit(1),
    );
    return row ?? null;
  }

  async countActive(chatId: string): Promise<number> {
    const row = await executeFirst(
      this.database,
      db
        .selectFrom('chat_members')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('chat_id', '=', chatId)
        .where('state', '=', 'active'),
    );
    return Number(row!.n);
  }

  /** Owner and administrators, longest-standing first. */
  managers(on: SqlTarget, chatId: string): Promise<ChatMember[]> {
    return executeAll(
      on,
      db
        .selectFrom('chat_members')
        .select(MEMBER)
        .where('chat_id', '=', chatId)
        .where('state', '=', 'active')
        .where('rank', 'in', ['owner', 'administrator'])
        .orderBy('joined_at', 'asc'),
    );
  }

  /** New active members of a chat that has none of these users yet. */
  addMembers(
    on: SqlTarget,
    chatId: string,
    members: ReadonlyArray<{ userId: string; rank: MemberRank }>,
  ): Promise<ChatMember[]> {
    return executeAll(
      on,
      db
        .insertInto('chat_members')
        .values(
          members.map(({ userId, rank }) => ({ chat_id: chatId, user_id: userId, rank, state: 'active' as const })),
        )
        .returning(MEMBER),
    );
  }

  /**
   * Writes the membership of the user, a new row when `existing` is null (which needs a rank and a state).
   * `existing` is updated in place, and left unwritten when nothing in it changes.
   */
  async setMembership(
    on: SqlTarget,
    chatId: string,
    userId: string,
    existing: ChatMember | null,
    changes: MemberChanges,
  ): Promise<ChatMember> {
    if (!existing) {
      const { rank, state } = changes;
      if (!rank || !state) throw new Error('a new membership needs a rank and a state');
      const row = await executeFirst(
        on,
        db
          .insertInto('chat_members')
          .values({ chat_id: chatId, user_id: userId, rank, state, ban_reason: changes.banReason ?? null })
          .returning(MEMBER),
      );
      return row!;
    }
    const changed = changedMemberColumns(existing, changes);
    if (Object.keys(changed).length === 0) return existing;
    const row = await executeFirst(
      on,
      db
        .updateTable('chat_members')
        .set({ ...changed, updated_at: sql<Date>`now()` })
        .where('chat_id', '=', chatId)
        .where('user_id', '=', userId)
        .returning(MEMBER),
    );
    return Object.assign(existing, row);
  }

  /** A pending join request of the user; undefined when one is pending already. */
  openJoinRequest(
    on: SqlTarget,
    chatId: string,
    userId: string,
  ): Promise<{ id: string; created_at: Date } | undefined> {
    return executeFirst(
      on,
      db
        .insertInto('chat_join_requests')
        .values({ chat_id: chatId, user_id: userId })
        .onConflict((oc) =>
          // The partial unique index of pending requests, named by its predicate as a literal so it is inferred.
          oc.columns(['chat_id', 'user_id']).where('status', '=', sql.lit('pending')).doNothing(),
        )
        .returning(['id', 'created_at']),
    );
  }

  async joinRequest(on: SqlTarget, id: string): Promise<ChatJoinRequest> {
    const row = await executeFirst(
      on,
      db
        .selectFrom('chat_join_requests')
        .select(['id', 'chat_id as chatId', 'user_id as userId', 'status', 'created_at as createdAt'])
        .where('id', '=', id)
        .limit(1),
    );
    if (!row) throw new Error(`join request ${id} is missing`);
    return row;
  }

  /** Settles the user's pending join request; false when none was pending. */
  async settleJoinRequest(
    on: SqlTarget,
    chatId: string,
    userId: string,
    status: 'approved' | 'declined',
  ): Promise<boolean> {
    const settled = await executeAll(
      on,
      db
        .updateTable('chat_join_requests')
        .set({ status })
        .where('chat_id', '=', chatId)
        .where('user_id', '=', userId)
        .where('status', '=', 'pending')
        .returning('id'),
    );
    return settled.length > 0;
  }

  /** Available bots that are active members of the chat. */
  async botsInChat(on: SqlTarget, chatId: string): Promise<ChatBot[]> {
    const rows = await executeAll(
      on,
      activeBotMembers(chatId)
        .select(['b.id', 'b.scopes', 's.allowed_updates', 'b.username', 'b.system_user_id', 'cm.rank'])
        .$narrowType<{ system_user_id: string }>()
        .orderBy('b.id'),
    );
    return rows.map(toChatBot);
  }

  /** The available bot speaking as this user, if the user is a bot's system user. */
  async botOfUser(on: SqlTarget, userId: string, chatId: string): Promise<ChatBot | null> {
    const row = await executeFirst(
      on,
      db
        .selectFrom('bots as b')
        .innerJoin('bot_delivery_settings as s', 's.bot_id', 'b.id')
        .leftJoin('chat_members as cm', (join) =>
          join.onRef('cm.user_id', '=', 'b.system_user_id').on('cm.chat_id', '=', chatId),
        )
        .select((eb) => [
          'b.id',
          'b.scopes',
          's.allowed_updates',
          'b.username',
          'b.system_user_id',
          eb.fn.coalesce('cm.rank', sql.lit('member' as const)).as('rank'),
        ])
        .$narrowType<{ system_user_id: string }>()
        .where('b.system_user_id', '=', userId)
        .where(botAvailable('b')),
    );
    return row ? toChatBot(row) : null;
  }
}
