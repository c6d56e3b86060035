import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount } from '@app/auth';
import { ApiErrorResponses } from '@app/platform';
import { BotAuth } from '../bot-auth/bot-auth.decorators';
import { CurrentBot } from '../bot-auth/current-bot.decorator';
import { Page } from '../bots/bot.view';
import { PageQueryDto } from '../bots/dto/page-query.dto';
import type { Bot, FriendRequestMode } from '../bots/entities/bot.entity';
import { AnswerFriendRequestDto, SendFriendRequestDto, SetFriendRequestModeDto } from './dto/friends.dto';
import { FriendRequestView } from './friend-request.view';
import { FriendsService } from './friends.service';

@ApiTags('bot methods: friend requests')
@BotAuth()
@Controller('api/v1/bots')
export class FriendsController {
  constructor(private readonly friends: FriendsService) {}

  @Post('setMyFriendRequestMode')
  @HttpCode(200)
  @ApiErrorResponses([400, 'VALIDATION'])
  @ApiOperation({ summary: 'setMyFriendRequestMode (leaving manual settles waiting requests)' })
  @ApiOkResponse({ description: '`true`' })
  setMyFriendRequestMode(@CurrentBot() bot: Bot, @Body() dto: SetFriendRequestModeDto): Promise<true> {
    return this.friends.setMode(bot.id, dto.friend_request_mode);
  }

  @Get('getMyFriendRequestMode')
  @ApiOperation({ summary: 'getMyFriendRequestMode' })
  @ApiOkResponse({ description: '`{ friend_request_mode }`' })
  getMyFriendRequestMode(@CurrentBot() bot: Bot): Promise<{ friend_request_mode: FriendRequestMode }> {
    return this.friends.getMode(bot.id);
  }

  @Post('getMyFriendRequestMode')
  @HttpCode(200)
  @ApiOperation({ summary: 'getMyFriendRequestMode' })
  @ApiOkResponse({ description: '`{ friend_request_mode }`' })
  postGetMyFriendRequestMode(@CurrentBot() bot: Bot): Promise<{ friend_request_mode: FriendRequestMode }> {
    return this.friends.getMode(bot.id);
  }

  @Get('getFriendRequests')
  @ApiOperation({ summary: 'Pending requests (manual mode only; other modes answer 409 CONFLICT)' })
  @ApiErrorResponses([400, 'VALIDATION'], { status: 409, code: 'CONFLICT', when: 'friend_request_mode is not manual' })
  @ApiOkResponse({ description: '`items` (pending requests, oldest first), `total`, `page`, `page_size`' })
  getFriendRequests(@CurrentBot() bot: Bot, @Query() query: PageQueryDto): Promise<Page<FriendRequestView>> {
    return this.friends.listPending(bot.id, query);
  }

  @Post('getFriendRequests')
  @HttpCode(200)
  @ApiErrorResponses([400, 'VALIDATION'], { status: 409, code: 'CONFLICT', when: 'friend_request_mode is not manual' })
  @ApiOperation({ summary: 'getFriendRequests (manual mode only; other modes answer 409 CONFLICT)' })
  @ApiOkResponse({ description: '`items` (pending requests, oldest first), `total`, `page`, `page_size`' })
  postGetFriendRequests(@CurrentBot() bot: Bot, @Body() query: PageQueryDto): Promise<Page<FriendRequestView>> {
    return this.friends.listPending(bot.id, query);
  }

  @Post('answerFriendRequest')
  @HttpCode(200)
  @ApiErrorResponses([400, 'VALIDATION'], [404, 'NOT_FOUND'], {
    status: 409,
    code: 'CONFLICT',
    when: 'not in manual mode, or the request was already answered',
  })
  @ApiOperation({
    summary: 'Accept or reject a pending request (manual mode); acceptance makes the relation effective',
  })
  @ApiOkResponse({ description: 'The answered request with its status' })
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
  @ApiErrorResponses(
    [400, 'VALIDATION'],
    [401, 'UNAUTHORIZED'],
    { status: 404, code: 'NOT_FOUND', when: 'no such bot, or the bot is not available' },
    { status: 409, code: 'CONFLICT', when: 'already friends, or a request is already waiting' },
  )
  @ApiCreatedResponse({ description: 'The request with status accepted, rejected or pending' })
  send(
    @CurrentAccount() account: Account,
    @Param('botId') botId: string,
    @Body() dto: SendFriendRequestDto,
  ): Promise<FriendRequestView> {
    return this.friends.send(account.id, botId, dto.message);
  }
}
