import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { AccountGuard, PlatformAdminGuard } from '@app/auth';
import { PageQueryDto } from '@app/platform';
import { BotAuth, CurrentBot } from '../bots/auth';
import { BotErrorDoc } from '../bot-errors';
import type { Bot } from '../bots/entities/bot.entity';
import { MessageView } from '../messages/dto/message.view';
import { BOT_NOT_AVAILABLE, MethodDocs } from '../method-docs';
import {
  CreateChatVirtualMemberDto,
  ListChatVirtualMembersDto,
  SendAsVirtualMemberDto,
} from './dto/virtual-members.dto';
import { AuditedVirtualMemberCall } from './virtual-member-audit.filter';
import { VirtualMemberAuditPage, VirtualMemberPage, VirtualMemberView } from './virtual-member.view';
import { VirtualMembersService } from './virtual-members.service';

const ADMISSION: BotErrorDoc[] = [
  { code: 'VALIDATION', when: 'a malformed field, or the chat is not a group' },
  BOT_NOT_AVAILABLE,
  { code: 'VIRTUAL_MEMBERS_DISABLED', when: 'platform staff have not enabled virtual members for the bot' },
  { code: 'NOT_FOUND', when: 'the bot is not an active member of the chat, or no such virtual member of this bot' },
];

/** Virtual members (bot token); every call, refused ones included, is written to the audit log. */
@ApiTags('bot virtual members')
@BotAuth()
@Controller('api/v1/bots')
export class VirtualMembersController {
  constructor(private readonly members: VirtualMembersService) {}

  @Post('createChatVirtualMember')
  @AuditedVirtualMemberCall()
  @MethodDocs(
    'createChatVirtualMember: a member with is_virtual true in a group the bot is an active member of',
    { status: 201, description: 'The new virtual member', type: VirtualMemberView },
    ...ADMISSION,
  )
  create(@CurrentBot() bot: Bot, @Body() dto: CreateChatVirtualMemberDto): Promise<VirtualMemberView> {
    return this.members.create(bot, dto);
  }

  @Post('listChatVirtualMembers')
  @HttpCode(200)
  @AuditedVirtualMemberCall()
  @MethodDocs(
    "listChatVirtualMembers: this bot's virtual members of the group, oldest first",
    { status: 200, description: '`items`, `total`, `page`, `pageSize`', type: VirtualMemberPage },
    ...ADMISSION,
  )
  list(@CurrentBot() bot: Bot, @Body() dto: ListChatVirtualMembersDto): Promise<VirtualMemberPage> {
    return this.members.list(bot, dto);
  }

  @Post('sendAsVirtualMember')
  @AuditedVirtualMemberCall()
  @MethodDocs(
    'sendAsVirtualMember: a text message (1 to 1000 characters) from one of its virtual members',
    { status: 201, description: 'The message, from the virtual member', type: MessageView },
    ...ADMISSION,
    { code: 'FORBIDDEN', when: 'the bot lacks the scope messages:send' },
    { code: 'BOT_RATE_LIMIT', when: 'a send quota of the bot is used up' },
  )
  send(@CurrentBot() bot: Bot, @Body() dto: SendAsVirtualMemberDto): Promise<MessageView> {
    return this.members.send(bot, dto);
  }
}

/** Platform staff read the audit log of a bot's virtual-member calls. */
@ApiTags('bot review (platform staff)')
@ApiBearerAuth()
@UseGuards(AccountGuard, PlatformAdminGuard)
@Controller('api/v1/bots/admin/bots')
export class VirtualMemberAuditController {
  constructor(private readonly members: VirtualMembersService) {}

  @Get(':botId/virtual-member-audit')
  @MethodDocs(
    "The bot's virtual-member calls (create, list, send; refused ones too), newest first",
    { status: 200, description: '`items`, `total`, `page`, `pageSize`', type: VirtualMemberAuditPage },
    'VALIDATION',
    'UNAUTHORIZED',
    { code: 'FORBIDDEN', when: 'not platform staff' },
    { code: 'NOT_FOUND', when: 'no such bot' },
  )
  auditLog(@Param('botId') botId: string, @Query() query: PageQueryDto): Promise<VirtualMemberAuditPage> {
    return this.members.auditLog(botId, query);
  }
}
