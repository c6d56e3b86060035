import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount } from '@app/auth';
import { ApiErrors } from '../bot-errors';
import { BotAuth } from '../bots/auth/bot-auth.decorators';
import { CurrentBot } from '../bots/auth/current-bot.decorator';
import { PageQueryDto } from '@app/platform';
import type { Bot } from '../bots/entities/bot.entity';
import { TRUE_SCHEMA } from '../method-docs';
import { AnswerFriendRequestDto, SendFriendRequestDto, SetFriendRequestModeDto } from './dto/friends.dto';
import { FriendRequestModeView, FriendRequestPage, FriendRequestView } from './friend-request.view';
import { FriendsService } from './friends.service';

@ApiTags('bot methods: friend requests')
@BotAuth()
@Controller('api/v1/bots')
export class FriendsController {
  constructor(private readonly friends: FriendsService) {}

  @Post('setMyFriendRequestMode')
  @HttpCode(200)
  @ApiErrors('VALIDATION')
  @ApiOperation({ summary: 'setMyFriendRequestMode (leaving manual settles waiting requests)' })
  @ApiOkResponse({ description: '`true`', schema: TRUE_SCHEMA })
  setMyFriendRequestMode(@CurrentBot() bot: Bot, @Body() dto: SetFriendRequestModeDto): Promise<true> {
    return this.friends.setMode(bot.id, dto.friend_request_mode);
  }

  @Get('getMyFriendRequestMode')
  @ApiOperation({ summary: 'getMyFriendRequestMode' })
  @ApiOkResponse({ description: '`{ friend_request_mode }`', type: FriendRequestModeView })
  getMyFriendRequestMode(@CurrentBot() bot: Bot): Promise<FriendRequestModeView> {
    return this.friends.getMode(bot.id);
  }

  @Post('getMyFriendRequestMode')
  @HttpCode(200)
  @ApiOperation({ summary: 'getMyFriendRequestMode' })
  @ApiOkResponse({ description: '`{ friend_request_mode }`', type: FriendRequestModeView })
  postGetMyFriendRequestMode(@CurrentBot() bot: Bot): Promise<FriendRequestModeView> {
    return this.friends.getMode(bot.id);
  }

  @Get('getFriendRequests')
  @ApiOperation({ summary: 'Pending requests (manual mode only; other modes answer 409 CONFLICT)' })
  @ApiErrors('VALIDATION', { code: 'CONFLICT', when: 'friend_request_mode is not manual' })
  @ApiOkResponse({
    description: '`items` (pending requests, oldest first), `total`, `page`, `pageSize`',
    type: FriendRequestPage,
  })
  getFriendRequests(@CurrentBot() bot: Bot, @Query() query: PageQueryDto): Promise<FriendRequestPage> {
    return this.friends.listPending(bot.id, query);
  }

  @Post('getFriendRequests')
  @HttpCode(200)
  @ApiErrors('VALIDATION', { code: 'CONFLICT', when: 'friend_request_mode is not manual' })
  @ApiOperation({ summary: 'getFriendRequests (manual mode only; other modes answer 409 CONFLICT)' })
  @ApiOkResponse({
    description: '`items` (pending requests, oldest first), `total`, `page`, `pageSize`',
    type: FriendRequestPage,
  })
  postGetFriendRequests(@CurrentBot() bot: Bot, @Body() query: PageQueryDto): Promise<FriendRequestPage> {
    return this.friends.listPending(bot.id, query);
  }

  @Post('answerFriendRequest')
  @HttpCode(200)
  @ApiErrors('VALIDATION', 'NOT_FOUND', {
    code: 'CONFLICT',
    when: 'not in manual mode, or the request was already answered',
  })
  @ApiOperation({
    summary: 'Accept or reject a pending request (manual mode); acceptance makes the relation effective',
  })
  @ApiOkResponse({ description: 'The answered request with its status', type: FriendRequestView })
  answerFriendRequest(@CurrentBot() bot: Bot, @Body() dto: AnswerFriendRequestDto): Promise<FriendRequestView> {
    return this.friends.answer(bot.id, dto.request_id, dto.accept);
  }
}

@ApiTags('client: friend requests')
@ApiBearerAuth()
@UseGuards(AccountGuard)
@Controller('api/v1/bots/client/bots')
export class ClientFriendRequestsController {
  constructor(private readonly friends: FriendsService) {}

  @Post(':botId/friend-requests')
  @ApiOperation({ summary: 'Ask a bot for friendship; settled at once unless the bot answers by hand' })
  @ApiErrors(
    'VALIDATION',
    'UNAUTHORIZED',
    { code: 'NOT_FOUND', when: 'no such bot, or the bot is not available' },
    { code: 'CONFLICT', when: 'already friends, or a request is already waiting' },
  )
  @ApiCreatedResponse({ description: 'The request with status accepted, rejected or pending', type: FriendRequestView })
  send(
    @CurrentAccount() account: Account,
    @Param('botId') botId: string,
    @Body() dto: SendFriendRequestDto,
  ): Promise<FriendRequestView> {
    return this.friends.send(account.id, botId, dto.message);
  }
}
