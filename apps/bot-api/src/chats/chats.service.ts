import { Injectable } from '@nestjs/common';
import type { Account } from '@app/auth';
import { isBotAvailable } from '@app/bot-delivery';
import { Database, Transaction } from '@app/platform';
import { BotsStore } from '../bots/bots.store';
import { FriendsService } from '../friends/friends.service';
import type { Person } from '../users/person';
import { UsersStore } from '../users/users.store';
import { ChatEventsService } from './chat-events.service';
import { chatView, memberView } from './chat-view';
import { ChatsStore, isManager, memberStatus } from './chats.store';
import { CreateGroupDto } from './dto/client-chats.dto';
import { ChatMember, MemberRank } from './entities/chat-member.entity';
import { BotErrors } from '../bot-errors';
import { ChatMemberView, GroupChatView, JoinRequestView, PrivateChatView } from './dto/chat.view';

/** What end users do to chats through the client routes; every change emits its membership Updates. */
@Injectable()
export class ChatsService {
  constructor(
    private readonly database: Database,
    private readonly events: ChatEventsService,
    private readonly friends: FriendsService,
    private readonly chats: ChatsStore,
    private readonly users: UsersStore,
    private readonly bots: BotsStore,
  ) {}

  async createGroup(account: Account, dto: CreateGroupDto): Promise<GroupChatView> {
    return this.database.transaction(async (tx) => {
      const memberIds = [...new Set(dto.member_ids ?? [])].filter((id) => id !== account.id);
      const people = await this.users.people(tx, [account.id, ...memberIds]);
      // Virtual members belong to the one group their bot created them in; their ids name nobody elsewhere.
      const unknown = memberIds.filter((id) => !people.has(id) || people.get(id)!.isVirtual);
      if (unknown.length > 0) throw BotErrors.error('NOT_FOUND', `Users not found: ${unknown.join(', ')}`);
      const chat = await this.chats.createGroup(tx, dto.title, account.id);
      const members = await this.chats.addMembers(tx, chat.id, [
        { userId: account.id, rank: 'owner' },
        ...memberIds.map((userId) => ({ userId, rank: 'member' as const })),
      ]);
      const actor = people.get(account.id)!;
      for (const userId of memberIds) {
        const target = people.get(userId)!;
        // A bot learns it was added (my_chat_member); people present from the start are not changes to announce.
        if (target.isBot) {
          await this.events.memberChanged(tx, { chat, actor, target, oldStatus: 'left', newStatus: 'member' });
        }
      }
      return { ...chatView(chat), members: members.map((m) => memberView(m, people.get(m.userId)!)) };
    });
  }

  /** One private chat per user and bot; opening it again returns the same chat (`created: false`). */
  async openPrivate(account: Account, botId: string): Promise<{ chat: PrivateChatView; created: boolean }> {
    return this.database.transaction(async (tx) => {
      const bot = await this.bots.find(tx, botId);
      if (!bot || !isBotAvailable(bot) || !bot.systemUserId) throw BotErrors.error('NOT_FOUND', 'Bot not found');
      if (!(await this.friends.canChat(tx, bot, account.id))) {
        throw BotErrors.error('FORBIDDEN', 'A private chat with this bot needs an accepted friend request');
      }
      const { chat, created } = await this.chats.openPrivate(tx, account.id, bot.systemUserId);
      if (created) {
        await this.chats.addMembers(tx, chat.id, [
          { userId: account.id, rank: 'member' },
          { userId: bot.systemUserId, rank: 'member' },
        ]);
        const people = await this.users.people(tx, [account.id, bot.systemUserId]);
        await this.events.memberChanged(tx, {
          chat,
          actor: people.get(account.id)!,
          target: people.get(bot.systemUserId)!,
          oldStatus: 'left',
          newStatus: 'member',
        });
      } else {
        await this.chats.requireActiveMember(tx, chat.id, account.id);
      }
      return { chat: { ...chatView(chat), bot_id: bot.id, bot_user_id: bot.systemUserId }, created };
    });
  }

  async addMember(account: Account, chatId: string, userId: string): Promise<ChatMemberView> {
    return this.database.transaction(async (tx) => {
      const { chat, member: own } = await this.groupForManager(tx, chatId, account.id);
      const target = await this.users.realPerson(tx, userId);
      const existing = await this.chats.member(tx, chatId, userId);
      if (existing?.state === 'active') throw BotErrors.error('CONFLICT', 'The user is already a member');
      if (existing?.state === 'banned') {
        throw BotErrors.error('CONFLICT', 'The user is banned from this chat; unban before adding');
      }
      const oldStatus = memberStatus(existing);
      const member = await this.chats.setMembership(tx, chatId, userId, existing, {
        rank: 'member',
        state: 'active',
        banReason: null,
      });
      await this.chats.settleJoinRequest(tx, chatId, userId, 'approved');
      const actor = await this.users.person(tx, own.userId);
      await this.events.memberChanged(tx, { chat, actor, target, oldStatus, newStatus: 'member' });
      return memberView(member, target);
    });
  }

  /** Removing oneself is leaving; removing someone else needs rank and leaves them `kicked`. */
  async removeMember(account: Account, chatId: string, userId: string): Promise<ChatMemberView> {
    return this.database.transaction(async (tx) => {
      const { chat, member: own } = await this.chats.requireActiveMember(tx, chatId, account.id, true);
      if (chat.type !== 'group') throw BotErrors.invalid('Members of a private chat cannot change');
      const target = userId === account.id ? own : await this.chats.member(tx, chatId, userId);
      if (!target || target.state !== 'active') throw BotErrors.error('NOT_FOUND', 'Member not found');
      if (target.rank === 'owner') throw BotErrors.error('FORBIDDEN', 'The owner cannot be removed from the group');
      if (target !== own) this.assertOutranks(own, target.rank);
      const oldStatus = memberStatus(target);
      await this.chats.setMembership(tx, chatId, userId, target, { state: target === own ? 'left' : 'kicked' });
      const person = await this.events.memberChangedBy(tx, chat, account.id, userId, oldStatus, memberStatus(target));
      return memberView(target, person);
    });
  }

  async setRole(account: Account, chatId: string, userId: string, role: MemberRank): Promise<ChatMemberView> {
    return this.database.transaction(async (tx) => {
      const { chat, member: own } = await this.groupForManager(tx, chatId, account.id);
      if (own.rank !== 'owner') throw BotErrors.error('FORBIDDEN', 'Only the owner changes ranks');
      await this.users.realPerson(tx, userId);
      const target = await this.chats.member(tx, chatId, userId);
      if (!target || target.state !== 'active') throw BotErrors.error('NOT_FOUND', 'Member not found');
      if (target.rank === 'owner') throw BotErrors.invalid('The owner rank cannot be changed');
      const oldStatus = memberStatus(target);
      await this.chats.setMembership(tx, chatId, userId, target, { rank: role });
      const person = await this.events.memberChangedBy(tx, chat, account.id, userId, oldStatus, role);
      return memberView(target, person);
    });
  }

  async requestJoin(account: Account, chatId: string): Promise<JoinRequestView> {
    return this.database.transaction(async (tx) => {
      const chat = await this.chats.find(tx, chatId);
      if (!chat || chat.type !== 'group') throw BotErrors.error('NOT_FOUND', 'Chat not found');
      const member = await this.chats.member(tx, chatId, account.id);
      if (member?.state === 'active') throw BotErrors.error('CONFLICT', 'You are already a member');
      if (member?.state === 'banned') throw BotErrors.error('FORBIDDEN', 'You are banned from this chat');
      const opened = await this.chats.openJoinRequest(tx, chatId, account.id);
      if (!opened) throw BotErrors.error('CONFLICT', 'A join request is already pending');
      const user: Person = await this.users.person(tx, account.id);
      await this.events.joinRequested(tx, chat, user, opened.id, opened.created_at);
      const request = await this.chats.joinRequest(tx, opened.id);
      return {
        id: request.id,
        chat_id: request.chatId,
        user_id: request.userId,
        status: request.status,
        created_at: request.createdAt.toISOString(),
      };
    });
  }

  private async groupForManager(tx: Transaction, chatId: string, userId: string) {
    const membership = await this.chats.requireActiveMember(tx, chatId, userId, true);
    if (membership.chat.type !== 'group') throw BotErrors.invalid('Members of a private chat cannot change');
    if (!isManager(membership.member)) {
      throw BotErrors.error('FORBIDDEN', 'Only the owner or an administrator can do this');
    }
    return membership;
  }

  private assertOutranks(own: ChatMember, targetRank: MemberRank): void {
    const allowed = own.rank === 'owner' || (own.rank === 'administrator' && targetRank === 'member');
    if (!allowed) throw BotErrors.error('FORBIDDEN', 'Your rank does not allow removing this member');
  }
}
