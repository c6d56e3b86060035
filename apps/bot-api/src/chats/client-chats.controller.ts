import { Body, Controller, Delete, HttpCode, Param, Patch, Post, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount } from '@app/auth';
import type { Response } from 'express';
import { ChatsService } from './chats.service';
import { CreateGroupDto, MemberRefDto, MemberRoleDto, OpenPrivateChatDto } from './dto/client-chats.dto';

/** End-user side of chats (account JWT); every change becomes Updates for the bots of the chat. */
@ApiTags('client chats')
@ApiBearerAuth()
@UseGuards(AccountGuard)
@Controller('api/v1/bots/client/chats')
export class ClientChatsController {
  constructor(private readonly chats: ChatsService) {}

  @Post()
  createGroup(@CurrentAccount() account: Account, @Body() dto: CreateGroupDto) {
    return this.chats.createGroup(account, dto);
  }

  /** 201 when the chat was created, 200 when it already existed. */
  @Post('private')
  async openPrivate(
    @CurrentAccount() account: Account,
    @Body() dto: OpenPrivateChatDto,
    @Res({ passthrough: true }) res: Response,
  ) {
    const { chat, created } = await this.chats.openPrivate(account, dto.bot_id);
    res.status(created ? 201 : 200);
    return chat;
  }

  @Post(':chatId/members')
  @HttpCode(200)
  addMember(@CurrentAccount() account: Account, @Param('chatId') chatId: string, @Body() dto: MemberRefDto) {
    return this.chats.addMember(account, chatId, dto.user_id);
  }

  @Delete(':chatId/members')
  removeMember(@CurrentAccount() account: Account, @Param('chatId') chatId: string, @Body() dto: MemberRefDto) {
    return this.chats.removeMember(account, chatId, dto.user_id);
  }

  @Patch(':chatId/members/:userId')
  setRole(
    @CurrentAccount() account: Account,
    @Param('chatId') chatId: string,
    @Param('userId') userId: string,
    @Body() dto: MemberRoleDto,
  ) {
    return this.chats.setRole(account, chatId, userId, dto.role);
  }

  @Post(':chatId/join-requests')
  requestJoin(@CurrentAccount() account: Account, @Param('chatId') chatId: string) {
    return this.chats.requestJoin(account, chatId);
  }
}
