import { Injectable } from '@nestjs/common';
import { Database, SqlTarget } from '@app/platform';
import type { Bot } from '../bots/entities/bot.entity';
import { userView } from '../users/person';
import { UsersStore } from '../users/users.store';
import { ChatEventsService } from './chat-events.service';
import { chatView, memberView } from './chat-view';
import { ChatChanges, ChatsStore, isManager, Membership, memberStatus } from './chats.store';
import {
  BanChatMemberDto,
  ChatMemberRefDto,
  PinMessageDto,
  SetChatDescriptionDto,
  SetChatPhotoDto,
  SetChatTitleDto,
  UnpinMessageDto,
} from './dto/bot-chats.dto';
import { MemberState } from './entities/chat-member.entity';
import { BotErrors } from '../bot-errors';
import { ChatMemberView, ChatView, UserProfilePhotosView } from './dto/chat.view';

/** Chat reads and group governance for bots (spec 4.2): reads need membership, changes need rank. */
@Injectable()
export class BotChatsService {
  constructor(
    private readonly database: Database,
    private readonly events: ChatEventsService,
    private readonly chats: ChatsStore,
    private readonly users: UsersStore,
  ) {}

  async getChat(bot: Bot, chatId: string): Promise<ChatView> {
    const { chat } = await this.membership(this.database, bot, chatId);
    return chatView(chat);
  }

  async getChatMember(bot: Bot, dto: ChatMemberRefDto): Promise<ChatMemberView> {
    const { chat } = await this.membership(this.database, bot, dto.chat_id);
    const person = await this.users.person(this.database, dto.user_id);
    const member = await this.chats.member(this.database, chat.id, person.id);
    if (!member) return { user: userView(person), status: 'left' };
    return memberView(member, person);
  }

  async getChatMemberCount(bot: Bot, chatId: string): Promise<number> {
    const { chat } = await this.membership(this.database, bot, chatId);
    return this.chats.countActive(chat.id);
  }

  /** The owner counts as an administrator. */
  async getChatAdministrators(bot: Bot, chatId: string): Promise<ChatMemberView[]> {
    const { chat } = await this.membership(this.database, bot, chatId);
    const members = await this.chats.managers(this.database, chat.id);
    const people = await this.users.people(
      this.database,
      members.map((m) => m.userId),
    );
    return members.map((m) => memberView(m, people.get(m.userId)!));
  }

  /**
   * Profile pictures of a user the bot shares a chat with (else 404, like an unknown user). Users of
   * this service have no profile pictures, so the list is empty; the lookup rule is what is kept.
   */
  async getUserProfilePhotos(bot: Bot, userId: string): Promise<UserProfilePhotosView> {
    if (!(await this.chats.shareAChat(this.database, bot.systemUserId ?? '', userId))) throw BotErrors.notFound('User');
    return { total_count: 0, photos: [] };
  }

  setChatTitle(bot: Bot, dto: SetChatTitleDto): Promise<true> {
    return this.governChat(bot, dto.chat_id, { title: dto.title });
  }

  setChatDescription(bot: Bot, dto: SetChatDescriptionDto): Promise<true> {
    return this.governChat(bot, dto.chat_id, { description: dto.description === '' ? null : dto.description });
  }

  setChatPhoto(bot: Bot, dto: SetChatPhotoDto): Promise<true> {
    return this.governChat(bot, dto.chat_id, { photoUrl: dto.photo });
  }

  pinChatMessage(bot: Bot, dto: PinMessageDto): Promise<true> {
    return this.database.transaction(async (tx) => {
      const { chat } = await this.governedGroup(tx, bot, dto.chat_id);
      const pinned = await this.chats.pin(tx, chat.id, dto.message_id);
      if (!pinned) throw BotErrors.error('NOT_FOUND', 'Message not found');
      return true as const;
    });
  }

  unpinChatMessage(bot: Bot, dto: UnpinMessageDto): Promise<true> {
    return this.database.transaction(async (tx) => {
      const { chat } = await this.governedGroup(tx, bot, dto.chat_id);
      if (dto.message_id === undefined || chat.pinnedMessageId === dto.message_id) {
        await this.chats.update(tx, chat.id, { pinnedMessageId: null });
      }
      return true as const;
    });
  }

  unpinAllChatMessages(bot: Bot, chatId: string): Promise<true> {
    return this.database.transaction(async (tx) => {
      const { chat } = await this.governedGroup(tx, bot, chatId);
      await this.chats.update(tx, chat.id, { pinnedMessageId: null });
      return true as const;
    });
  }

  /** Removes without blacklisting: the user may join again. */
  kickChatMember(bot: Bot, dto: ChatMemberRefDto): Promise<true> {
    return this.moderate(bot, dto, 'kicked', null);
  }

  /** Removes and blacklists; also bans a user who is not in the group yet. */
  banChatMember(bot: Bot, dto: BanChatMemberDto): Promise<true> {
    return this.moderate(bot, dto, 'banned', dto.reason ?? null);
  }

  /** Lifts the blacklist without adding the user back. */
  unbanChatMember(bot: Bot, dto: ChatMemberRefDto): Promise<true> {
    return this.database.transaction(async (tx) => {
      const { chat } = await this.governedGroup(tx, bot, dto.chat_id);
      const target = await this.chats.member(tx, chat.id, dto.user_id);
      if (target?.state === 'banned') {
        await this.chats.setMembership(tx, chat.id, dto.user_id, target, { state: 'left', banReason: null });
        await this.events.memberChangedBy(tx, chat, bot.systemUserId!, dto.user_id, 'banned', 'left');
      }
      return true as const;
    });
  }

  /**
   * The bot leaves a group (my_chat_member for itself, chat_member for the group's other bots). A
   * private chat cannot be left, and the owner cannot leave its group, as it cannot be removed.
   */
  leaveChat(bot: Bot, chatId: string): Promise<true> {
    return this.database.transaction(async (tx) => {
      const { chat, member } = await this.membership(tx, bot, chatId, true);
      if (chat.type !== 'group') throw BotErrors.invalid('A private chat cannot be left');
      if (member.rank === 'owner') throw BotErrors.error('FORBIDDEN', 'The owner cannot leave the group');
      const oldStatus = memberStatus(member);
      await this.chats.setMembership(tx, chat.id, member.userId, member, { state: 'left', rank: 'member' });
      await this.events.memberChangedBy(tx, chat, member.userId, member.userId, oldStatus, 'left');
      return true as const;
    });
  }

  /** Settles a pending chat_join_request: approval makes the user a member, declining just closes it. */
  answerJoinRequest(bot: Bot, dto: ChatMemberRefDto, approve: boolean): Promise<true> {
    return this.database.transaction(async (tx) => {
      const { chat } = await this.governedGroup(tx, bot, dto.chat_id);
      const settled = await this.chats.settleJoinRequest(tx, chat.id, dto.user_id, approve ? 'approved' : 'declined');
      if (!settled) throw BotErrors.error('NOT_FOUND', 'No pending join request of this user');
      if (!approve) return true as const;
      const existing = await this.chats.member(tx, chat.id, dto.user_id);
      if (existing?.state === 'banned') throw BotErrors.error('CONFLICT', 'The user is banned from this chat');
      if (existing?.state === 'active') return true as const;
      const oldStatus = memberStatus(existing);
      await this.chats.setMembership(tx, chat.id, dto.user_id, existing, {
        rank: 'member',
        state: 'active',
        banReason: null,
      });
      await this.events.memberChangedBy(tx, chat, bot.systemUserId!, dto.user_id, oldStatus, 'member');
      return true as const;
    });
  }

  private async moderate(
    bot: Bot,
    dto: ChatMemberRefDto,
    state: Extract<MemberState, 'kicked' | 'banned'>,
    reason: string | null,
  ): Promise<true> {
    return this.database.transaction(async (tx) => {
      const { chat, member: own } = await this.governedGroup(tx, bot, dto.chat_id);
      if (dto.user_id === own.userId) throw BotErrors.invalid('A bot cannot remove itself this way');
      await this.users.person(tx, dto.user_id);
      const target = await this.chats.member(tx, chat.id, dto.user_id);
      if (!target && state === 'kicked') throw BotErrors.error('NOT_FOUND', 'Member not found');
      if (target && target.state === 'active') {
        if (target.rank === 'owner') throw BotErrors.error('FORBIDDEN', 'The owner cannot be removed');
        if (target.rank === 'administrator' && own.rank !== 'owner') {
          throw BotErrors.error('FORBIDDEN', 'Only the owner removes an administrator');
        }
      }
      const oldStatus = memberStatus(target);
      // A kick needs an active member (no row at all answered 404 above); a ban may add the row.
      if (state === 'kicked' && target?.state !== 'active') return true as const;
      await this.chats.setMembership(tx, chat.id, dto.user_id, target, {
        state,
        rank: 'member',
        banReason: reason,
      });
      await this.events.memberChangedBy(tx, chat, bot.systemUserId!, dto.user_id, oldStatus, state);
      return true as const;
    });
  }

  private governChat(bot: Bot, chatId: string, changes: Omit<ChatChanges, 'pinnedMessageId'>): Promise<true> {
    return this.database.transaction(async (tx) => {
      const { chat } = await this.governedGroup(tx, bot, chatId);
      await this.chats.update(tx, chat.id, changes);
      return true as const;
    });
  }

  private membership(on: SqlTarget, bot: Bot, chatId: string, lock = false): Promise<Membership> {
    return this.chats.requireActiveMember(on, chatId, bot.systemUserId ?? '', lock);
  }

  /** A group where the bot is owner or administrator: 404 when not a member, 403 without rank. */
  private async governedGroup(on: SqlTarget, bot: Bot, chatId: string): Promise<Membership> {
    const membership = await this.membership(on, bot, chatId, true);
    if (membership.chat.type !== 'group') throw BotErrors.invalid('Only groups can be governed');
    if (!isManager(membership.member)) {
      throw BotErrors.error('FORBIDDEN', 'The bot must be owner or administrator of the group');
    }
    return membership;
  }
}
