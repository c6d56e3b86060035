import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiError } from '@app/envelope';
import { DataSource, EntityManager, In } from 'typeorm';
import type { Bot } from '../bots/entities/bot.entity';
import { userView } from '../messages/message-view';
import { ChatEventsService } from './chat-events.service';
import { isManager, loadPeople, loadPerson, Membership, memberStatus, requireActiveMember } from './chat-queries';
import { chatView, memberView } from './chat-view';
import {
  BanChatMemberDto,
  ChatMemberRefDto,
  PinMessageDto,
  SetChatDescriptionDto,
  SetChatPhotoDto,
  SetChatTitleDto,
  UnpinMessageDto,
} from './dto/bot-chats.dto';
import { Chat } from './entities/chat.entity';
import { ChatMember, MemberState } from './entities/chat-member.entity';

/** Chat reads and group governance for bots (spec 4.2): reads need membership, changes need rank. */
@Injectable()
export class BotChatsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly events: ChatEventsService,
  ) {}

  async getChat(bot: Bot, chatId: string) {
    const { chat } = await this.membership(this.dataSource.manager, bot, chatId);
    return chatView(chat);
  }

  async getChatMember(bot: Bot, dto: ChatMemberRefDto) {
    const manager = this.dataSource.manager;
    const { chat } = await this.membership(manager, bot, dto.chat_id);
    const person = await loadPerson(manager, dto.user_id);
    const member = await manager.getRepository(ChatMember).findOneBy({ chatId: chat.id, userId: person.id });
    if (!member) return { user: userView(person), status: 'left' };
    return memberView(member, person);
  }

  async getChatMemberCount(bot: Bot, chatId: string): Promise<number> {
    const { chat } = await this.membership(this.dataSource.manager, bot, chatId);
    return this.dataSource.getRepository(ChatMember).countBy({ chatId: chat.id, state: 'active' });
  }

  /** The owner counts as an administrator. */
  async getChatAdministrators(bot: Bot, chatId: string) {
    const manager = this.dataSource.manager;
    const { chat } = await this.membership(manager, bot, chatId);
    const members = await manager.getRepository(ChatMember).find({
      where: { chatId: chat.id, state: 'active', rank: In(['owner', 'administrator']) },
      order: { joinedAt: 'ASC' },
    });
    const people = await loadPeople(
      manager,
      members.map((m) => m.userId),
    );
    return members.map((m) => memberView(m, people.get(m.userId)!));
  }

  setChatTitle(bot: Bot, dto: SetChatTitleDto) {
    return this.governChat(bot, dto.chat_id, { title: dto.title });
  }

  setChatDescription(bot: Bot, dto: SetChatDescriptionDto) {
    return this.governChat(bot, dto.chat_id, { description: dto.description === '' ? null : dto.description });
  }

  setChatPhoto(bot: Bot, dto: SetChatPhotoDto) {
    return this.governChat(bot, dto.chat_id, { photoUrl: dto.photo });
  }

  pinChatMessage(bot: Bot, dto: PinMessageDto) {
    return this.dataSource.transaction(async (manager) => {
      const { chat } = await this.governedGroup(manager, bot, dto.chat_id);
      const rows: unknown[] = await manager.query(
        `SELECT 1 FROM messages WHERE id = $1 AND chat_id = $2 AND deleted_at IS NULL`,
        [dto.message_id, chat.id],
      );
      if (rows.length === 0) throw new ApiError(404, undefined, 'Message not found');
      await manager.getRepository(Chat).update({ id: chat.id }, { pinnedMessageId: dto.message_id });
      return true as const;
    });
  }

  unpinChatMessage(bot: Bot, dto: UnpinMessageDto) {
    return this.dataSource.transaction(async (manager) => {
      const { chat } = await this.governedGroup(manager, bot, dto.chat_id);
      if (dto.message_id === undefined || chat.pinnedMessageId === dto.message_id) {
        await manager.getRepository(Chat).update({ id: chat.id }, { pinnedMessageId: null });
      }
      return true as const;
    });
  }

  unpinAllChatMessages(bot: Bot, chatId: string) {
    return this.dataSource.transaction(async (manager) => {
      const { chat } = await this.governedGroup(manager, bot, chatId);
      await manager.getRepository(Chat).update({ id: chat.id }, { pinnedMessageId: null });
      return true as const;
    });
  }

  /** Removes without blacklisting: the user may join again. */
  kickChatMember(bot: Bot, dto: ChatMemberRefDto) {
    return this.moderate(bot, dto, 'kicked', null);
  }

  /** Removes and blacklists; also bans a user who is not in the group yet. */
  banChatMember(bot: Bot, dto: BanChatMemberDto) {
    return this.moderate(bot, dto, 'banned', dto.reason ?? null);
  }

  /** Lifts the blacklist without adding the user back. */
  unbanChatMember(bot: Bot, dto: ChatMemberRefDto) {
    return this.dataSource.transaction(async (manager) => {
      const { chat } = await this.governedGroup(manager, bot, dto.chat_id);
      const target = await manager.getRepository(ChatMember).findOneBy({ chatId: chat.id, userId: dto.user_id });
      if (target?.state === 'banned') {
        target.state = 'left';
        target.banReason = null;
        await manager.getRepository(ChatMember).save(target);
        await this.announce(manager, chat, bot, dto.user_id, 'banned', 'left');
      }
      return true as const;
    });
  }

  /** Settles a pending chat_join_request: approval makes the user a member, declining just closes it. */
  answerJoinRequest(bot: Bot, dto: ChatMemberRefDto, approve: boolean) {
    return this.dataSource.transaction(async (manager) => {
      const { chat } = await this.governedGroup(manager, bot, dto.chat_id);
      // UPDATE … RETURNING through TypeORM yields [rows, affectedCount].
      const [settled]: [unknown[], number] = await manager.query(
        `UPDATE chat_join_requests SET status = $3
          WHERE chat_id = $1 AND user_id = $2 AND status = 'pending' RETURNING id`,
        [chat.id, dto.user_id, approve ? 'approved' : 'declined'],
      );
      if (settled.length === 0) throw new ApiError(404, undefined, 'No pending join request of this user');
      if (!approve) return true as const;
      const repo = manager.getRepository(ChatMember);
      const existing = await repo.findOneBy({ chatId: chat.id, userId: dto.user_id });
      if (existing?.state === 'banned') throw ApiError.conflict('CONFLICT', 'The user is banned from this chat');
      if (existing?.state === 'active') return true as const;
      const oldStatus = memberStatus(existing);
      const row = existing ?? manager.create(ChatMember, { chatId: chat.id, userId: dto.user_id });
      Object.assign(row, { rank: 'member', state: 'active', banReason: null });
      await repo.save(row);
      await this.announce(manager, chat, bot, dto.user_id, oldStatus, 'member');
      return true as const;
    });
  }

  private async moderate(bot: Bot, dto: ChatMemberRefDto, state: MemberState, reason: string | null) {
    return this.dataSource.transaction(async (manager) => {
      const { chat, member: own } = await this.governedGroup(manager, bot, dto.chat_id);
      if (dto.user_id === own.userId) throw ApiError.badRequest('A bot cannot remove itself this way');
      await loadPerson(manager, dto.user_id);
      const repo = manager.getRepository(ChatMember);
      const target = await repo.findOneBy({ chatId: chat.id, userId: dto.user_id });
      if (!target && state === 'kicked') throw new ApiError(404, undefined, 'Member not found');
      if (target && target.state === 'active') {
        if (target.rank === 'owner') throw new ApiError(403, 'FORBIDDEN', 'The owner cannot be removed');
        if (target.rank === 'administrator' && own.rank !== 'owner') {
          throw new ApiError(403, 'FORBIDDEN', 'Only the owner removes an administrator');
        }
      }
      const oldStatus = memberStatus(target);
      const row = target ?? manager.create(ChatMember, { chatId: chat.id, userId: dto.user_id, rank: 'member' });
      if (state === 'kicked' && row.state !== 'active') return true as const;
      Object.assign(row, { state, rank: 'member', banReason: reason });
      await repo.save(row);
      await this.announce(manager, chat, bot, dto.user_id, oldStatus, state);
      return true as const;
    });
  }

  private async announce(
    manager: EntityManager,
    chat: Chat,
    bot: Bot,
    userId: string,
    oldStatus: string,
    newStatus: string,
  ) {
    const people = await loadPeople(manager, [bot.systemUserId!, userId]);
    await this.events.memberChanged(manager, {
      chat,
      actor: people.get(bot.systemUserId!)!,
      target: people.get(userId)!,
      oldStatus,
      newStatus,
    });
  }

  private governChat(bot: Bot, chatId: string, changes: Partial<Pick<Chat, 'title' | 'description' | 'photoUrl'>>) {
    return this.dataSource.transaction(async (manager) => {
      const { chat } = await this.governedGroup(manager, bot, chatId);
      await manager.getRepository(Chat).update({ id: chat.id }, changes);
      return true as const;
    });
  }

  private membership(manager: EntityManager, bot: Bot, chatId: string, lock = false): Promise<Membership> {
    return requireActiveMember(manager, chatId, bot.systemUserId ?? '', lock);
  }

  /** A group where the bot is owner or administrator: 404 when not a member, 403 without rank. */
  private async governedGroup(manager: EntityManager, bot: Bot, chatId: string): Promise<Membership> {
    const membership = await this.membership(manager, bot, chatId, true);
    if (membership.chat.type !== 'group') throw ApiError.badRequest('Only groups can be governed');
    if (!isManager(membership.member)) {
      throw new ApiError(403, 'FORBIDDEN', 'The bot must be owner or administrator of the group');
    }
    return membership;
  }
}
