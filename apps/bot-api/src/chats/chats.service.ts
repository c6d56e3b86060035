import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Account } from '@app/auth';
import { ApiError } from '@app/envelope';
import { DataSource, EntityManager } from 'typeorm';
import { isBotAvailable, Bot } from '../bots/entities/bot.entity';
import { FriendsService } from '../friends/friends.service';
import type { Person } from '../messages/message-view';
import { ChatEventsService } from './chat-events.service';
import { isManager, isUuid, loadPeople, loadPerson, memberStatus, requireActiveMember } from './chat-queries';
import { chatView, memberView } from './chat-view';
import { CreateGroupDto } from './dto/client-chats.dto';
import { Chat } from './entities/chat.entity';
import { ChatJoinRequest } from './entities/chat-join-request.entity';
import { ChatMember, MemberRank } from './entities/chat-member.entity';

/** What end users do to chats through the client routes; every change emits its membership Updates. */
@Injectable()
export class ChatsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly events: ChatEventsService,
    private readonly friends: FriendsService,
  ) {}

  async createGroup(account: Account, dto: CreateGroupDto) {
    return this.dataSource.transaction(async (manager) => {
      const memberIds = [...new Set(dto.member_ids ?? [])].filter((id) => id !== account.id);
      const people = await loadPeople(manager, [account.id, ...memberIds]);
      const unknown = memberIds.filter((id) => !people.has(id));
      if (unknown.length > 0) throw new ApiError(404, undefined, `Users not found: ${unknown.join(', ')}`);
      const chat = await manager
        .getRepository(Chat)
        .save(manager.create(Chat, { type: 'group', title: dto.title, createdBy: account.id }));
      const members = [
        manager.create(ChatMember, { chatId: chat.id, userId: account.id, rank: 'owner', state: 'active' }),
        ...memberIds.map((userId) =>
          manager.create(ChatMember, { chatId: chat.id, userId, rank: 'member', state: 'active' }),
        ),
      ];
      await manager.getRepository(ChatMember).save(members);
      const actor = people.get(account.id)!;
      for (const userId of memberIds) {
        const target = people.get(userId)!;
        // A bot learns it was added (my_chat_member); people present from the start are not changes to announce.
        if (target.isBot) {
          await this.events.memberChanged(manager, { chat, actor, target, oldStatus: 'left', newStatus: 'member' });
        }
      }
      return { ...chatView(chat), members: members.map((m) => memberView(m, people.get(m.userId)!)) };
    });
  }

  /** One private chat per user and bot; opening it again returns the same chat (`created: false`). */
  async openPrivate(account: Account, botId: string) {
    return this.dataSource.transaction(async (manager) => {
      const bot = await manager.getRepository(Bot).findOneBy({ id: botId });
      if (!bot || !isBotAvailable(bot) || !bot.systemUserId) throw new ApiError(404, undefined, 'Bot not found');
      if (!(await this.friends.canChat(manager, bot, account.id))) {
        throw new ApiError(403, 'FORBIDDEN', 'A private chat with this bot needs an accepted friend request');
      }
      const inserted: Array<{ id: string }> = await manager.query(
        `INSERT INTO chats (type, private_key, created_by) VALUES ('private', $1, $2)
         ON CONFLICT (private_key) DO NOTHING RETURNING id`,
        [`${account.id}|${bot.systemUserId}`, account.id],
      );
      const chat = await manager
        .getRepository(Chat)
        .findOneByOrFail({ privateKey: `${account.id}|${bot.systemUserId}` });
      const created = inserted.length > 0;
      if (created) {
        await manager
          .getRepository(ChatMember)
          .save([
            manager.create(ChatMember, { chatId: chat.id, userId: account.id, rank: 'member', state: 'active' }),
            manager.create(ChatMember, { chatId: chat.id, userId: bot.systemUserId, rank: 'member', state: 'active' }),
          ]);
        const people = await loadPeople(manager, [account.id, bot.systemUserId]);
        await this.events.memberChanged(manager, {
          chat,
          actor: people.get(account.id)!,
          target: people.get(bot.systemUserId)!,
          oldStatus: 'left',
          newStatus: 'member',
        });
      } else {
        await requireActiveMember(manager, chat.id, account.id);
      }
      return { chat: { ...chatView(chat), bot_id: bot.id, bot_user_id: bot.systemUserId }, created };
    });
  }

  async addMember(account: Account, chatId: string, userId: string) {
    return this.dataSource.transaction(async (manager) => {
      const { chat, member: own } = await this.groupForManager(manager, chatId, account.id);
      const target = await loadPerson(manager, userId);
      const repo = manager.getRepository(ChatMember);
      const existing = await repo.findOneBy({ chatId, userId });
      if (existing?.state === 'active') throw ApiError.conflict('CONFLICT', 'The user is already a member');
      if (existing?.state === 'banned') {
        throw ApiError.conflict('CONFLICT', 'The user is banned from this chat; unban before adding');
      }
      const oldStatus = memberStatus(existing);
      const member = existing ?? manager.create(ChatMember, { chatId, userId });
      Object.assign(member, { rank: 'member', state: 'active', banReason: null });
      await repo.save(member);
      await manager.query(
        `UPDATE chat_join_requests SET status = 'approved' WHERE chat_id = $1 AND user_id = $2 AND status = 'pending'`,
        [chatId, userId],
      );
      const actor = await loadPerson(manager, own.userId);
      await this.events.memberChanged(manager, { chat, actor, target, oldStatus, newStatus: 'member' });
      return memberView(member, target);
    });
  }

  /** Removing oneself is leaving; removing someone else needs rank and leaves them `kicked`. */
  async removeMember(account: Account, chatId: string, userId: string) {
    return this.dataSource.transaction(async (manager) => {
      const { chat, member: own } = await requireActiveMember(manager, chatId, account.id, true);
      if (chat.type !== 'group') throw ApiError.badRequest('Members of a private chat cannot change');
      const repo = manager.getRepository(ChatMember);
      const target = userId === account.id ? own : await repo.findOneBy({ chatId, userId });
      if (!target || target.state !== 'active') throw new ApiError(404, undefined, 'Member not found');
      if (target.rank === 'owner') throw new ApiError(403, 'FORBIDDEN', 'The owner cannot be removed from the group');
      if (target !== own) this.assertOutranks(own, target.rank);
      const oldStatus = memberStatus(target);
      target.state = target === own ? 'left' : 'kicked';
      await repo.save(target);
      const people = await loadPeople(manager, [account.id, userId]);
      await this.events.memberChanged(manager, {
        chat,
        actor: people.get(account.id)!,
        target: people.get(userId)!,
        oldStatus,
        newStatus: target.state,
      });
      return memberView(target, people.get(userId)!);
    });
  }

  async setRole(account: Account, chatId: string, userId: string, role: MemberRank) {
    return this.dataSource.transaction(async (manager) => {
      const { chat, member: own } = await this.groupForManager(manager, chatId, account.id);
      if (own.rank !== 'owner') throw new ApiError(403, 'FORBIDDEN', 'Only the owner changes ranks');
      const repo = manager.getRepository(ChatMember);
      const target = await repo.findOneBy({ chatId, userId });
      if (!target || target.state !== 'active') throw new ApiError(404, undefined, 'Member not found');
      if (target.rank === 'owner') throw ApiError.badRequest('The owner rank cannot be changed');
      const oldStatus = memberStatus(target);
      target.rank = role;
      await repo.save(target);
      const people = await loadPeople(manager, [account.id, userId]);
      await this.events.memberChanged(manager, {
        chat,
        actor: people.get(account.id)!,
        target: people.get(userId)!,
        oldStatus,
        newStatus: role,
      });
      return memberView(target, people.get(userId)!);
    });
  }

  async requestJoin(account: Account, chatId: string) {
    return this.dataSource.transaction(async (manager) => {
      const chat = isUuid(chatId) ? await manager.getRepository(Chat).findOneBy({ id: chatId }) : null;
      if (!chat || chat.type !== 'group') throw new ApiError(404, undefined, 'Chat not found');
      const member = await manager.getRepository(ChatMember).findOneBy({ chatId, userId: account.id });
      if (member?.state === 'active') throw ApiError.conflict('CONFLICT', 'You are already a member');
      if (member?.state === 'banned') throw new ApiError(403, 'FORBIDDEN', 'You are banned from this chat');
      const rows: Array<{ id: string; created_at: Date }> = await manager.query(
        `INSERT INTO chat_join_requests (chat_id, user_id) VALUES ($1, $2)
         ON CONFLICT (chat_id, user_id) WHERE status = 'pending' DO NOTHING RETURNING id, created_at`,
        [chatId, account.id],
      );
      if (rows.length === 0) throw ApiError.conflict('CONFLICT', 'A join request is already pending');
      const user: Person = await loadPerson(manager, account.id);
      await this.events.joinRequested(manager, chat, user, rows[0].id, rows[0].created_at);
      const request = await manager.getRepository(ChatJoinRequest).findOneByOrFail({ id: rows[0].id });
      return {
        id: request.id,
        chat_id: request.chatId,
        user_id: request.userId,
        status: request.status,
        created_at: request.createdAt.toISOString(),
      };
    });
  }

  private async groupForManager(manager: EntityManager, chatId: string, userId: string) {
    const membership = await requireActiveMember(manager, chatId, userId, true);
    if (membership.chat.type !== 'group') throw ApiError.badRequest('Members of a private chat cannot change');
    if (!isManager(membership.member)) {
      throw new ApiError(403, 'FORBIDDEN', 'Only the owner or an administrator can do this');
    }
    return membership;
  }

  private assertOutranks(own: ChatMember, targetRank: MemberRank): void {
    const allowed = own.rank === 'owner' || (own.rank === 'administrator' && targetRank === 'member');
    if (!allowed) throw new ApiError(403, 'FORBIDDEN', 'Your rank does not allow removing this member');
  }
}
