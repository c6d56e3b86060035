import { ApiError } from '@app/envelope';
import { EntityManager } from 'typeorm';
import type { Person } from '../messages/message-view';
import type { UpdateRecipient } from '../updates/updates.service';
import { Chat } from './entities/chat.entity';
import { ChatMember, MemberRank } from './entities/chat-member.entity';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

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

const BOT_COLUMNS = `b.id, b.scopes, b.allowed_updates, b.username, b.system_user_id`;
const BOT_USABLE = `b.review_status = 'approved' AND b.status = 'enabled'`;

/**
 * SQL expression: the ChatBotRow objects (a JSON array) of the usable bots that are active members
 * of the chat `chatIdSql`, for statements that read them together with other rows.
 */
export function botsInChatJson(chatIdSql: string): string {
  return `(SELECT coalesce(json_agg(json_build_object('id', b.id, 'scopes', b.scopes,
            'allowed_updates', b.allowed_updates, 'username', b.username, 'system_user_id', b.system_user_id,
            'rank', cm.rank) ORDER BY b.id), '[]'::json)
       FROM chat_members cm JOIN bots b ON b.system_user_id = cm.user_id
      WHERE cm.chat_id = ${chatIdSql} AND cm.state = 'active' AND ${BOT_USABLE})`;
}

/** Usable bots that are active members of the chat. */
export async function botsInChat(manager: EntityManager, chatId: string): Promise<ChatBot[]> {
  const rows: ChatBotRow[] = await manager.query(
    `SELECT ${BOT_COLUMNS}, cm.rank
       FROM chat_members cm JOIN bots b ON b.system_user_id = cm.user_id
      WHERE cm.chat_id = $1 AND cm.state = 'active' AND ${BOT_USABLE}
      ORDER BY b.id`,
    [chatId],
  );
  return rows.map(toChatBot);
}

/** The usable bot speaking as this user, if the user is a bot's system user. */
export async function botOfUser(manager: EntityManager, userId: string, chatId: string): Promise<ChatBot | null> {
  const rows: ChatBotRow[] = await manager.query(
    `SELECT ${BOT_COLUMNS}, COALESCE(cm.rank, 'member') AS rank
       FROM bots b LEFT JOIN chat_members cm ON cm.user_id = b.system_user_id AND cm.chat_id = $2
      WHERE b.system_user_id = $1 AND ${BOT_USABLE}`,
    [userId, chatId],
  );
  return rows.length > 0 ? toChatBot(rows[0]) : null;
}

export async function loadPeople(manager: EntityManager, ids: readonly string[]): Promise<Map<string, Person>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows: Array<{ id: string; name: string; username: string | null; is_bot: boolean }> = await manager.query(
    `SELECT id, name, username, is_bot FROM users WHERE id = ANY($1)`,
    [unique],
  );
  return new Map(rows.map((r) => [r.id, { id: r.id, name: r.name, username: r.username, isBot: r.is_bot }]));
}

export async function loadPerson(manager: EntityManager, id: string): Promise<Person> {
  const person = (await loadPeople(manager, [id])).get(id);
  if (!person) throw new ApiError(404, undefined, `User ${id} not found`);
  return person;
}

export interface Membership {
  chat: Chat;
  member: ChatMember;
}

/**
 * The chat and the caller's active membership. A chat the caller is not an active member of answers
 * 404 exactly like a chat that does not exist. `lock` takes the chat row FOR UPDATE so membership
 * changes of one chat are serialised.
 */
export async function requireActiveMember(
  manager: EntityManager,
  chatId: string,
  userId: string,
  lock = false,
): Promise<Membership> {
  const notFound = new ApiError(404, undefined, 'Chat not found');
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

export function isManager(member: Pick<ChatMember, 'rank' | 'state'>): boolean {
  return member.state === 'active' && (member.rank === 'owner' || member.rank === 'administrator');
}

/** Status as Updates and member reads show it: the rank while active, else the state; no row is `left`. */
export function memberStatus(member: Pick<ChatMember, 'rank' | 'state'> | null): string {
  if (!member) return 'left';
  return member.state === 'active' ? member.rank : member.state;
}
