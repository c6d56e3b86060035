import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { BotAuth, CurrentBot } from '../bot-auth';
import type { Bot } from '../bots/entities/bot.entity';
import { BotChatsService } from './bot-chats.service';
import {
  BanChatMemberDto,
  ChatMemberRefDto,
  ChatRefDto,
  PinMessageDto,
  SetChatDescriptionDto,
  SetChatPhotoDto,
  SetChatTitleDto,
  UnpinMessageDto,
} from './dto/bot-chats.dto';

/** Chat reads (POST, and GET with query parameters) and group governance for bots. */
@ApiTags('bot chats')
@BotAuth()
@Controller('api/v1/bots')
export class BotChatsController {
  constructor(private readonly chats: BotChatsService) {}

  @Get('getChat')
  getChatByQuery(@CurrentBot() bot: Bot, @Query() dto: ChatRefDto) {
    return this.chats.getChat(bot, dto.chat_id);
  }

  @Post('getChat')
  @HttpCode(200)
  getChat(@CurrentBot() bot: Bot, @Body() dto: ChatRefDto) {
    return this.chats.getChat(bot, dto.chat_id);
  }

  @Get('getChatMember')
  getChatMemberByQuery(@CurrentBot() bot: Bot, @Query() dto: ChatMemberRefDto) {
    return this.chats.getChatMember(bot, dto);
  }

  @Post('getChatMember')
  @HttpCode(200)
  getChatMember(@CurrentBot() bot: Bot, @Body() dto: ChatMemberRefDto) {
    return this.chats.getChatMember(bot, dto);
  }

  @Get('getChatMemberCount')
  getChatMemberCountByQuery(@CurrentBot() bot: Bot, @Query() dto: ChatRefDto) {
    return this.chats.getChatMemberCount(bot, dto.chat_id);
  }

  @Post('getChatMemberCount')
  @HttpCode(200)
  getChatMemberCount(@CurrentBot() bot: Bot, @Body() dto: ChatRefDto) {
    return this.chats.getChatMemberCount(bot, dto.chat_id);
  }

  @Get('getChatAdministrators')
  getChatAdministratorsByQuery(@CurrentBot() bot: Bot, @Query() dto: ChatRefDto) {
    return this.chats.getChatAdministrators(bot, dto.chat_id);
  }

  @Post('getChatAdministrators')
  @HttpCode(200)
  getChatAdministrators(@CurrentBot() bot: Bot, @Body() dto: ChatRefDto) {
    return this.chats.getChatAdministrators(bot, dto.chat_id);
  }

  @Post('setChatTitle')
  @HttpCode(200)
  setChatTitle(@CurrentBot() bot: Bot, @Body() dto: SetChatTitleDto) {
    return this.chats.setChatTitle(bot, dto);
  }

  @Post('setChatDescription')
  @HttpCode(200)
  setChatDescription(@CurrentBot() bot: Bot, @Body() dto: SetChatDescriptionDto) {
    return this.chats.setChatDescription(bot, dto);
  }

  @Post('setChatPhoto')
  @HttpCode(200)
  setChatPhoto(@CurrentBot() bot: Bot, @Body() dto: SetChatPhotoDto) {
    return this.chats.setChatPhoto(bot, dto);
  }

  @Post('pinChatMessage')
  @HttpCode(200)
  pinChatMessage(@CurrentBot() bot: Bot, @Body() dto: PinMessageDto) {
    return this.chats.pinChatMessage(bot, dto);
  }

  @Post('unpinChatMessage')
  @HttpCode(200)
  unpinChatMessage(@CurrentBot() bot: Bot, @Body() dto: UnpinMessageDto) {
    return this.chats.unpinChatMessage(bot, dto);
  }

  @Post('unpinAllChatMessages')
  @HttpCode(200)
  unpinAllChatMessages(@CurrentBot() bot: Bot, @Body() dto: ChatRefDto) {
    return this.chats.unpinAllChatMessages(bot, dto.chat_id);
  }

  @Post('kickChatMember')
  @HttpCode(200)
  kickChatMember(@CurrentBot() bot: Bot, @Body() dto: ChatMemberRefDto) {
    return this.chats.kickChatMember(bot, dto);
  }

  @Post('banChatMember')
  @HttpCode(200)
  banChatMember(@CurrentBot() bot: Bot, @Body() dto: BanChatMemberDto) {
    return this.chats.banChatMember(bot, dto);
  }

  @Post('unbanChatMember')
  @HttpCode(200)
  unbanChatMember(@CurrentBot() bot: Bot, @Body() dto: ChatMemberRefDto) {
    return this.chats.unbanChatMember(bot, dto);
  }
}
