import { Injectable } from '@nestjs/common';
import { toTelegramChat, toTelegramChatMember, TelegramObject } from '@app/telegram-shapes';
import { BotChatsService } from '../../chats/bot-chats.service';
import {
  BanChatMemberDto,
  ChatMemberRefDto,
  ChatRefDto,
  PinMessageDto,
  SetChatDescriptionDto,
  SetChatTitleDto,
  UnpinMessageDto,
} from '../../chats/dto/bot-chats.dto';
import { nativeDto } from '../native-dto';
import type { TelegramArgs } from '../telegram-args';
import type { TelegramCall, TelegramMethod, TelegramMethodGroup } from '../telegram-call';
import { TelegramIdsService } from '../telegram-ids.service';

/** Chat reads and governance: each one call of BotChatsService, whose membership and rank rules apply. */
@Injectable()
export class ChatsMethods implements TelegramMethodGroup {
  constructor(
    private readonly chats: BotChatsService,
    private readonly ids: TelegramIdsService,
  ) {}

  methods(): Record<string, TelegramMethod> {
    return {
      getChat: (call) => this.getChat(call),
      getChatMember: (call) => this.getChatMember(call),
      getChatMemberCount: (call) => this.getChatMemberCount(call),
      getChatMembersCount: (call) => this.getChatMemberCount(call),
      getChatAdministrators: (call) => this.getChatAdministrators(call),
      setChatTitle: async ({ bot, args }) =>
        this.chats.setChatTitle(
          bot,
          await nativeDto(SetChatTitleDto, { ...(await this.chatRef(args)), title: args.string('title') }),
        ),
      setChatDescription: async ({ bot, args }) =>
        this.chats.setChatDescription(
          bot,
          await nativeDto(SetChatDescriptionDto, {
            ...(await this.chatRef(args)),
            description: args.string('description') ?? '',
          }),
        ),
      pinChatMessage: async ({ bot, args }) =>
        this.chats.pinChatMessage(
          bot,
          await nativeDto(PinMessageDto, { ...(await this.chatRef(args)), message_id: args.requiredInt('message_id') }),
        ),
      unpinChatMessage: async ({ bot, args }) =>
        this.chats.unpinChatMessage(
          bot,
          await nativeDto(UnpinMessageDto, { ...(await this.chatRef(args)), message_id: args.int('message_id') }),
        ),
      unpinAllChatMessages: async ({ bot, args }) =>
        this.chats.unpinAllChatMessages(bot, (await nativeDto(ChatRefDto, await this.chatRef(args))).chat_id),
      banChatMember: async ({ bot, args }) =>
        this.chats.banChatMember(bot, await nativeDto(BanChatMemberDto, await this.memberRef(args))),
      unbanChatMember: async ({ bot, args }) =>
        this.chats.unbanChatMember(bot, await nativeDto(ChatMemberRefDto, await this.memberRef(args))),
      approveChatJoinRequest: async ({ bot, args }) =>
        this.chats.answerJoinRequest(bot, await nativeDto(ChatMemberRefDto, await this.memberRef(args)), true),
      declineChatJoinRequest: async ({ bot, args }) =>
        this.chats.answerJoinRequest(bot, await nativeDto(ChatMemberRefDto, await this.memberRef(args)), false),
      getUserProfilePhotos: async ({ bot, args }) =>
        this.chats.getUserProfilePhotos(bot, await this.ids.userOf(args.requiredInt('user_id'))),
      leaveChat: async ({ bot, args }) => this.chats.leaveChat(bot, (await nativeDto(ChatRefDto, await this.chatRef(args))).chat_id),
    };
  }

  private async chatRef(args: TelegramArgs): Promise<{ chat_id: string }> {
    return { chat_id: await this.ids.chatOf(args.chat()) };
  }

  private async memberRef(args: TelegramArgs): Promise<{ chat_id: string; user_id: string }> {
    return { ...(await this.chatRef(args)), user_id: await this.ids.userOf(args.requiredInt('user_id')) };
  }

  private async getChat({ bot, args }: TelegramCall): Promise<TelegramObject> {
    const { chat_id } = await this.chatRef(args);
    const chat = await this.chats.getChat(bot, chat_id);
    return this.ids.present((ids) => ({
      ...toTelegramChat(chat, ids),
      ...(chat.pinned_message_id !== null ? { pinned_message_id: chat.pinned_message_id } : {}),
      accent_color_id: 0,
      max_reaction_count: 0,
    }));
  }

  private async getChatMember({ bot, args }: TelegramCall): Promise<TelegramObject> {
    const member = await this.chats.getChatMember(bot, await nativeDto(ChatMemberRefDto, await this.memberRef(args)));
    return this.ids.present((ids) => toTelegramChatMember(member, ids));
  }

  private async getChatMemberCount({ bot, args }: TelegramCall): Promise<number> {
    return this.chats.getChatMemberCount(bot, (await this.chatRef(args)).chat_id);
  }

  private async getChatAdministrators({ bot, args }: TelegramCall): Promise<TelegramObject[]> {
    const members = await this.chats.getChatAdministrators(bot, (await this.chatRef(args)).chat_id);
    return this.ids.present((ids) => members.map((member) => toTelegramChatMember(member, ids)));
  }
}
