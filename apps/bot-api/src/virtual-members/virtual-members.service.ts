import { Injectable } from '@nestjs/common';
import { Database, PageQuery, pageAnswer, pageWindow, SqlTarget } from '@app/platform';
import { BotErrors } from '../bot-errors';
import { BotsStore } from '../bots/bots.store';
import type { Bot } from '../bots/entities/bot.entity';
import { ChatsStore } from '../chats/chats.store';
import type { Chat } from '../chats/entities/chat.entity';
import { MessageView } from '../messages/dto/message.view';
import type { Message } from '../messages/entities/message.entity';
import { MessageEventsService } from '../messages/message-events.service';
import { MessageRenderer } from '../messages/message-renderer';
import { textColumns } from '../messages/message-text';
import { MessagesService } from '../messages/messages.service';
import { SendQuotaService } from '../quotas/send-quota.service';
import { SEND_SCOPE } from '../quotas/send-quota.guard';
import { userView } from '../users/person';
import { UsersStore } from '../users/users.store';
import { newVirtualMemberId } from '../users/virtual-member-id';
import { auditRequest } from './audit-request';
import {
  CreateChatVirtualMemberDto,
  ListChatVirtualMembersDto,
  SendAsVirtualMemberDto,
} from './dto/virtual-members.dto';
import { VirtualMemberAuditStore } from './virtual-member-audit.store';
import { auditView, VirtualMemberAuditPage, VirtualMemberPage, VirtualMemberView } from './virtual-member.view';
import { VirtualMembersStore } from './virtual-members.store';

/**
 * Virtual members (spec 4.2, decisions 3): group members a bot creates and speaks as, once platform
 * staff enabled them for the bot. Each successful call writes its audit entry in its own transaction;
 * refused calls are logged by VirtualMemberAuditInterceptor.
 */
@Injectable()
export class VirtualMembersService {
  constructor(
    private readonly database: Database,
    private readonly store: VirtualMembersStore,
    private readonly audit: VirtualMemberAuditStore,
    private readonly bots: BotsStore,
    private readonly chats: ChatsStore,
    private readonly users: UsersStore,
    private readonly messages: MessagesService,
    private readonly renderer: MessageRenderer,
    private readonly events: MessageEventsService,
    private readonly quotas: SendQuotaService,
  ) {}

  async create(bot: Bot, dto: CreateChatVirtualMemberDto): Promise<VirtualMemberView> {
    return this.database.transaction(async (tx) => {
      const chat = await this.admittedGroup(tx, bot, dto.chat_id);
      const id = newVirtualMemberId();
      await this.users.createVirtualUser(tx, id, dto.name);
      await this.chats.addMembers(tx, chat.id, [{ userId: id, rank: 'member' }]);
      const row = await this.store.insert(tx, id, chat.id, bot.id);
      await this.audit.record(tx, {
        botId: bot.id,
        action: 'create',
        outcome: 'succeeded',
        chatId: chat.id,
        virtualMemberId: id,
        request: auditRequest('create', dto),
      });
      return {
        user: userView({ id, name: dto.name, username: null, isBot: false, isVirtual: true }),
        chat_id: chat.id,
        bot_id: bot.id,
        created_at: row.created_at.toISOString(),
      };
    });
  }

  /** The bot's own virtual members of the group, oldest first. */
  async list(bot: Bot, dto: ListChatVirtualMembersDto): Promise<VirtualMemberPage> {
    const window = pageWindow(dto as PageQuery);
    return this.database.transaction(async (tx) => {
      const chat = await this.admittedGroup(tx, bot, dto.chat_id);
      const [rows, total] = await this.store.page(tx, chat.id, bot.id, window.offset, window.pageSize);
      const people = await this.users.people(
        tx,
        rows.map((row) => row.user_id),
      );
      await this.audit.record(tx, {
        botId: bot.id,
        action: 'list',
        outcome: 'succeeded',
        chatId: chat.id,
        request: auditRequest('list', dto),
      });
      const items = rows.map((row) => ({
        user: userView(people.get(row.user_id)!),
        chat_id: row.chat_id,
        bot_id: row.bot_id,
        created_at: row.created_at.toISOString(),
      }));
      return pageAnswer(items, total, window);
    });
  }

  /**
   * A text message from the virtual member: written, with the Updates of the group's other bots
   * (privacy rules applied), in one transaction. It counts against the bot's send quotas.
   */
  async send(bot: Bot, dto: SendAsVirtualMemberDto): Promise<MessageView> {
    if (!bot.scopes.includes(SEND_SCOPE)) throw BotErrors.error('FORBIDDEN', `The bot lacks the scope ${SEND_SCOPE}`);
    return this.database.transaction(async (tx) => {
      const chat = await this.admittedGroup(tx, bot, dto.chat_id);
      const member = await this.store.find(tx, dto.virtual_member_id, chat.id, bot.id);
      if (!member) throw BotErrors.notFound('Virtual member');
      await this.quotas.consume(bot);
      const reserved = await this.messages.reserveAsMember(tx, chat.id, member.user_id, null);
      const message: Message = {
        id: reserved.id,
        chatId: chat.id,
        senderId: member.user_id,
        kind: 'text',
        ...textColumns(dto.text, []),
        fileId: null,
        replyToMessageId: null,
        mentions: [],
        metadata: {},
        replyMarkup: null,
        createdAt: reserved.createdAt,
        editedAt: null,
        deletedAt: null,
      };
      // The bot that speaks as the member does not receive its own words back.
      const others = { ...reserved, bots: reserved.bots.filter((other) => other.id !== bot.id) };
      const written = await this.messages.insertReserved(
        tx,
        message,
        this.events.messagePostedUpdates(others, message, null),
      );
      this.events.posted(tx, written);
      await this.audit.record(tx, {
        botId: bot.id,
        action: 'send',
        outcome: 'succeeded',
        chatId: chat.id,
        virtualMemberId: member.user_id,
        messageId: message.id,
        request: auditRequest('send', dto),
      });
      return this.renderer.view(message, reserved.chat, reserved.sender, null);
    });
  }

  /** Staff read of the audit log, newest first; 404 for an unknown bot. */
  async auditLog(botId: string, query: PageQuery): Promise<VirtualMemberAuditPage> {
    const window = pageWindow(query);
    if (!(await this.bots.reviewOf(this.database, botId))) throw BotErrors.notFound('Bot');
    const [rows, total] = await this.audit.page(this.database, botId, window.offset, window.pageSize);
    return pageAnswer(rows.map(auditView), total, window);
  }

  /**
   * Admission of every call: the feature is on for the bot (403 VIRTUAL_MEMBERS_DISABLED), the bot is
   * an active member of the chat (404) and the chat is a group (400).
   */
  private async admittedGroup(on: SqlTarget, bot: Bot, chatId: string): Promise<Chat> {
    if (!(await this.bots.virtualMembersEnabled(on, bot.id))) {
      throw BotErrors.error('VIRTUAL_MEMBERS_DISABLED');
    }
    const { chat } = await this.chats.requireActiveMember(on, chatId, bot.systemUserId!);
    if (chat.type !== 'group') throw BotErrors.invalid('Virtual members exist only in group chats');
    return chat;
  }
}
