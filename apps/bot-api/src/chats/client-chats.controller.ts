import { Body, Controller, Delete, HttpCode, Param, Patch, Post, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount } from '@app/auth';
import type { Response } from 'express';
import { MethodDocs } from '../method-docs';
import { ChatsService } from './chats.service';
import { ChatMemberView, GroupChatView, JoinRequestView, PrivateChatView } from './dto/chat.view';
import { CreateGroupDto, MemberRefDto, MemberRoleDto, OpenPrivateChatDto } from './dto/client-chats.dto';

/** End-user side of chats (account JWT); every change becomes Updates for the bots of the chat. */
@ApiTags('client chats')
@ApiBearerAuth()
@UseGuards(AccountGuard)
@Controller('api/v1/bots/client/chats')
export class ClientChatsController {
  constructor(private readonly chats: ChatsService) {}

  @Post()
  @MethodDocs(
    'Create a group; the caller becomes its owner',
    { status: 201, description: 'The group with its members', type: GroupChatView },
    'VALIDATION',
    { code: 'NOT_FOUND', when: 'a member id is not a known user' },
  )
  createGroup(@CurrentAccount() account: Account, @Body() dto: CreateGroupDto): Promise<GroupChatView> {
    return this.chats.createGroup(account, dto);
  }

  /** 201 when the chat was created, 200 when it already existed. */
  @Post('private')
  @ApiOkResponse({ description: 'The chat, which already existed', type: PrivateChatView })
  @MethodDocs(
    'Open the private chat with a bot (friend relation or auto_accept needed)',
    { status: 201, description: 'The chat, created now', type: PrivateChatView },
    'VALIDATION',
    { code: 'FORBIDDEN', when: 'the bot accepts chats only from friends' },
    { code: 'NOT_FOUND', when: 'no such bot, or it is not available' },
  )
  async openPrivate(
    @CurrentAccount() account: Account,
    @Body() dto: OpenPrivateChatDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<PrivateChatView> {
    const { chat, created } = await this.chats.openPrivate(account, dto.bot_id);
    res.status(created ? 201 : 200);
    return chat;
  }

  @Post(':chatId/members')
  @MethodDocs(
    'Add a member (owner or administrator); emits my_chat_member / chat_member',
    { status: 200, description: 'The member', type: ChatMemberView },
    'VALIDATION',
    { code: 'FORBIDDEN', when: 'the caller is not owner or administrator' },
    { code: 'NOT_FOUND', when: 'no such chat for the caller, or no such user' },
    { code: 'CONFLICT', when: 'already a member, or banned' },
  )
  @HttpCode(200)
  addMember(
    @CurrentAccount() account: Account,
    @Param('chatId') chatId: string,
    @Body() dto: MemberRefDto,
  ): Promise<ChatMemberView> {
    return this.chats.addMember(account, chatId, dto.user_id);
  }

  @Delete(':chatId/members')
  @MethodDocs(
    'Remove a member, or leave when user_id is the caller',
    { status: 200, description: 'The member with status kicked or left', type: ChatMemberView },
    'VALIDATION',
    { code: 'FORBIDDEN', when: 'rank too low, or the owner' },
    { code: 'NOT_FOUND', when: 'no such chat or member' },
  )
  removeMember(
    @CurrentAccount() account: Account,
    @Param('chatId') chatId: string,
    @Body() dto: MemberRefDto,
  ): Promise<ChatMemberView> {
    return this.chats.removeMember(account, chatId, dto.user_id);
  }

  @Patch(':chatId/members/:userId')
  @MethodDocs(
    'Change the rank of a member (owner only)',
    { status: 200, description: 'The member', type: ChatMemberView },
    'VALIDATION',
    { code: 'FORBIDDEN', when: 'the caller is not the owner' },
    { code: 'NOT_FOUND', when: 'no such chat or member' },
  )
  setRole(
    @CurrentAccount() account: Account,
    @Param('chatId') chatId: string,
    @Param('userId') userId: string,
    @Body() dto: MemberRoleDto,
  ): Promise<ChatMemberView> {
    return this.chats.setRole(account, chatId, userId, dto.role);
  }

  @Post(':chatId/join-requests')
  @MethodDocs(
    'Ask to join a group; emits chat_join_request to its administrator bots',
    { status: 201, description: 'The pending request', type: JoinRequestView },
    { code: 'FORBIDDEN', when: 'the caller is banned from the group' },
    { code: 'NOT_FOUND', when: 'no such group' },
    { code: 'CONFLICT', when: 'already a member, or a request is pending' },
  )
  requestJoin(@CurrentAccount() account: Account, @Param('chatId') chatId: string): Promise<JoinRequestView> {
    return this.chats.requestJoin(account, chatId);
  }
}
