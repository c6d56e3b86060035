import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { BotAuth, CurrentBot } from '../bots/auth';
import { BotErrorDoc } from '../bot-errors';
import type { Bot } from '../bots/entities/bot.entity';
import { BOT_NOT_AVAILABLE, MethodDocs } from '../method-docs';
import { BotChatsService } from './bot-chats.service';
import { ChatMemberView, ChatView, UserProfilePhotosView } from './dto/chat.view';
import {
  BanChatMemberDto,
  ChatMemberRefDto,
  ChatRefDto,
  PinMessageDto,
  SetChatDescriptionDto,
  SetChatPhotoDto,
  SetChatTitleDto,
  UnpinMessageDto,
  UserRefDto,
} from './dto/bot-chats.dto';
import { SuccessDoc, TRUE_SCHEMA } from '../method-docs';

const OK = (description: string, type: SuccessDoc['type']): SuccessDoc => ({ status: 200, description, type });
const TRUE: SuccessDoc = { status: 200, description: '`true`', schema: TRUE_SCHEMA };
const MEMBER_COUNT: SuccessDoc = { status: 200, description: 'A number', schema: { type: 'integer', minimum: 0 } };
const NOT_MEMBER: BotErrorDoc = {
  code: 'NOT_FOUND',
  when: 'the bot is not an active member of the chat, no such user, or no pending join request',
};
const READ_ERRORS: BotErrorDoc[] = ['VALIDATION', NOT_MEMBER];
const GOVERN_ERRORS: BotErrorDoc[] = [
  'VALIDATION',
  BOT_NOT_AVAILABLE,
  { code: 'FORBIDDEN', when: 'the bot is not owner or administrator, or the target outranks it' },
  NOT_MEMBER,
];

/** Chat reads (POST, and GET with query parameters) and group governance for bots. */
@ApiTags('bot chats')
@BotAuth()
@Controller('api/v1/bots')
export class BotChatsController {
  constructor(private readonly chats: BotChatsService) {}

  @Get('getChat')
  @MethodDocs('getChat: the chat with pinned_message_id', OK('The chat', ChatView), ...READ_ERRORS)
  getChatByQuery(@CurrentBot() bot: Bot, @Query() dto: ChatRefDto): Promise<ChatView> {
    return this.chats.getChat(bot, dto.chat_id);
  }

  @Post('getChat')
  @MethodDocs('getChat: the chat with pinned_message_id', OK('The chat', ChatView), ...READ_ERRORS)
  @HttpCode(200)
  getChat(@CurrentBot() bot: Bot, @Body() dto: ChatRefDto): Promise<ChatView> {
    return this.chats.getChat(bot, dto.chat_id);
  }

  @Get('getChatMember')
  @MethodDocs(
    'getChatMember: a user and their status in the chat',
    OK('`{ user, status }`', ChatMemberView),
    ...READ_ERRORS,
  )
  getChatMemberByQuery(@CurrentBot() bot: Bot, @Query() dto: ChatMemberRefDto): Promise<ChatMemberView> {
    return this.chats.getChatMember(bot, dto);
  }

  @Post('getChatMember')
  @MethodDocs(
    'getChatMember: a user and their status in the chat',
    OK('`{ user, status }`', ChatMemberView),
    ...READ_ERRORS,
  )
  @HttpCode(200)
  getChatMember(@CurrentBot() bot: Bot, @Body() dto: ChatMemberRefDto): Promise<ChatMemberView> {
    return this.chats.getChatMember(bot, dto);
  }

  @Get('getChatMemberCount')
  @MethodDocs('getChatMemberCount: active members, bots and virtual members included', MEMBER_COUNT, ...READ_ERRORS)
  getChatMemberCountByQuery(@CurrentBot() bot: Bot, @Query() dto: ChatRefDto): Promise<number> {
    return this.chats.getChatMemberCount(bot, dto.chat_id);
  }

  @Post('getChatMemberCount')
  @MethodDocs('getChatMemberCount: active members, bots and virtual members included', MEMBER_COUNT, ...READ_ERRORS)
  @HttpCode(200)
  getChatMemberCount(@CurrentBot() bot: Bot, @Body() dto: ChatRefDto): Promise<number> {
    return this.chats.getChatMemberCount(bot, dto.chat_id);
  }

  @Get('getChatAdministrators')
  @MethodDocs(
    'getChatAdministrators: the owner and the administrators',
    OK('Members with status owner or administrator', [ChatMemberView]),
    ...READ_ERRORS,
  )
  getChatAdministratorsByQuery(@CurrentBot() bot: Bot, @Query() dto: ChatRefDto): Promise<ChatMemberView[]> {
    return this.chats.getChatAdministrators(bot, dto.chat_id);
  }

  @Post('getChatAdministrators')
  @MethodDocs(
    'getChatAdministrators: the owner and the administrators',
    OK('Members with status owner or administrator', [ChatMemberView]),
    ...READ_ERRORS,
  )
  @HttpCode(200)
  getChatAdministrators(@CurrentBot() bot: Bot, @Body() dto: ChatRefDto): Promise<ChatMemberView[]> {
    return this.chats.getChatAdministrators(bot, dto.chat_id);
  }

  @Post('setChatTitle')
  @MethodDocs('setChatTitle (owner or administrator)', TRUE, ...GOVERN_ERRORS)
  @HttpCode(200)
  setChatTitle(@CurrentBot() bot: Bot, @Body() dto: SetChatTitleDto): Promise<true> {
    return this.chats.setChatTitle(bot, dto);
  }

  @Post('setChatDescription')
  @MethodDocs('setChatDescription (owner or administrator)', TRUE, ...GOVERN_ERRORS)
  @HttpCode(200)
  setChatDescription(@CurrentBot() bot: Bot, @Body() dto: SetChatDescriptionDto): Promise<true> {
    return this.chats.setChatDescription(bot, dto);
  }

  @Post('setChatPhoto')
  @MethodDocs('setChatPhoto: an HTTPS URL (owner or administrator)', TRUE, ...GOVERN_ERRORS)
  @HttpCode(200)
  setChatPhoto(@CurrentBot() bot: Bot, @Body() dto: SetChatPhotoDto): Promise<true> {
    return this.chats.setChatPhoto(bot, dto);
  }

  @Post('pinChatMessage')
  @MethodDocs('pinChatMessage (owner or administrator)', TRUE, ...GOVERN_ERRORS)
  @HttpCode(200)
  pinChatMessage(@CurrentBot() bot: Bot, @Body() dto: PinMessageDto): Promise<true> {
    return this.chats.pinChatMessage(bot, dto);
  }

  @Post('unpinChatMessage')
  @MethodDocs('unpinChatMessage (owner or administrator)', TRUE, ...GOVERN_ERRORS)
  @HttpCode(200)
  unpinChatMessage(@CurrentBot() bot: Bot, @Body() dto: UnpinMessageDto): Promise<true> {
    return this.chats.unpinChatMessage(bot, dto);
  }

  @Post('unpinAllChatMessages')
  @MethodDocs('unpinAllChatMessages (owner or administrator)', TRUE, ...GOVERN_ERRORS)
  @HttpCode(200)
  unpinAllChatMessages(@CurrentBot() bot: Bot, @Body() dto: ChatRefDto): Promise<true> {
    return this.chats.unpinAllChatMessages(bot, dto.chat_id);
  }

  @Post('getUserProfilePhotos')
  @HttpCode(200)
  @MethodDocs(
    'getUserProfilePhotos: pictures of a user the bot shares a chat with (users have none here)',
    OK('`{ total_count: 0, photos: [] }`', UserProfilePhotosView),
    'VALIDATION',
    { code: 'NOT_FOUND', when: 'the bot shares no chat with the user' },
  )
  getUserProfilePhotos(@CurrentBot() bot: Bot, @Body() dto: UserRefDto): Promise<UserProfilePhotosView> {
    return this.chats.getUserProfilePhotos(bot, dto.user_id);
  }

  @Post('leaveChat')
  @HttpCode(200)
  @MethodDocs(
    'leaveChat: the bot leaves a group; emits my_chat_member to it and chat_member to the other bots',
    TRUE,
    'VALIDATION',
    BOT_NOT_AVAILABLE,
    { code: 'FORBIDDEN', when: 'the bot owns the group' },
    NOT_MEMBER,
  )
  leaveChat(@CurrentBot() bot: Bot, @Body() dto: ChatRefDto): Promise<true> {
    return this.chats.leaveChat(bot, dto.chat_id);
  }

  @Post('approveChatJoinRequest')
  @HttpCode(200)
  @MethodDocs('approveChatJoinRequest: the user who asked to join becomes a member', TRUE, ...GOVERN_ERRORS, {
    code: 'CONFLICT',
    when: 'the user was banned meanwhile',
  })
  approveChatJoinRequest(@CurrentBot() bot: Bot, @Body() dto: ChatMemberRefDto): Promise<true> {
    return this.chats.answerJoinRequest(bot, dto, true);
  }

  @Post('declineChatJoinRequest')
  @HttpCode(200)
  @MethodDocs('declineChatJoinRequest: close a pending join request', TRUE, ...GOVERN_ERRORS)
  declineChatJoinRequest(@CurrentBot() bot: Bot, @Body() dto: ChatMemberRefDto): Promise<true> {
    return this.chats.answerJoinRequest(bot, dto, false);
  }

  @Post('kickChatMember')
  @MethodDocs('kickChatMember: remove without blacklisting', TRUE, ...GOVERN_ERRORS)
  @HttpCode(200)
  kickChatMember(@CurrentBot() bot: Bot, @Body() dto: ChatMemberRefDto): Promise<true> {
    return this.chats.kickChatMember(bot, dto);
  }

  @Post('banChatMember')
  @MethodDocs('banChatMember: remove and blacklist, with an optional reason', TRUE, ...GOVERN_ERRORS)
  @HttpCode(200)
  banChatMember(@CurrentBot() bot: Bot, @Body() dto: BanChatMemberDto): Promise<true> {
    return this.chats.banChatMember(bot, dto);
  }

  @Post('unbanChatMember')
  @MethodDocs('unbanChatMember: lift the blacklist; does not add the user back', TRUE, ...GOVERN_ERRORS)
  @HttpCode(200)
  unbanChatMember(@CurrentBot() bot: Bot, @Body() dto: ChatMemberRefDto): Promise<true> {
    return this.chats.unbanChatMember(bot, dto);
  }
}
