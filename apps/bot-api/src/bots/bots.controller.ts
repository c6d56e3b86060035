import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount } from '@app/auth';
import { ApiErrorResponses } from '@app/platform';
import { BotCredentialsService, IssuedToken } from './bot-credentials.service';
import { BotView, Page } from './bot.view';
import { BotsService } from './bots.service';
import { PageQueryDto } from './dto/page-query.dto';
import { SubmitBotDto } from './dto/submit-bot.dto';
import { UpdateBotDto } from './dto/update-bot.dto';

@ApiTags('developer bots')
@ApiBearerAuth()
@ApiErrorResponses({ status: 401, code: 'UNAUTHORIZED', when: 'no valid account JWT (bot tokens are refused)' })
@UseGuards(AccountGuard)
@Controller('api/v1/bots/my')
export class BotsController {
  constructor(
    private readonly bots: BotsService,
    private readonly credentials: BotCredentialsService,
  ) {}

  @Post()
  @ApiOperation({ summary: 'Apply for a bot; it waits for staff review' })
  @ApiErrorResponses([400, 'VALIDATION'], { status: 409, code: 'CONFLICT', when: 'username taken' })
  @ApiCreatedResponse({ description: 'The bot object with review_status pending' })
  submit(@CurrentAccount() account: Account, @Body() dto: SubmitBotDto): Promise<BotView> {
    return this.bots.submit(account.id, dto);
  }

  @Get()
  @ApiOperation({ summary: 'List my bots with status and token prefix' })
  @ApiErrorResponses([400, 'VALIDATION'])
  @ApiOkResponse({ description: '`items` (bots with status and token_prefix), `total`, `page`, `page_size`' })
  list(@CurrentAccount() account: Account, @Query() query: PageQueryDto): Promise<Page<BotView>> {
    return this.bots.list(account.id, query);
  }

  @Get(':botId')
  @ApiErrorResponses([404, 'NOT_FOUND'])
  @ApiOperation({ summary: 'One of my bots' })
  @ApiOkResponse({ description: 'The bot object' })
  get(@CurrentAccount() account: Account, @Param('botId') botId: string): Promise<BotView> {
    return this.bots.get(account.id, botId);
  }

  @Patch(':botId')
  @ApiOperation({ summary: 'Change an approved bot' })
  @ApiErrorResponses([400, 'VALIDATION'], [404, 'NOT_FOUND'], {
    status: 409,
    code: 'CONFLICT',
    when: 'not approved yet, or username taken',
  })
  @ApiOkResponse({ description: 'The changed bot object' })
  update(
    @CurrentAccount() account: Account,
    @Param('botId') botId: string,
    @Body() dto: UpdateBotDto,
  ): Promise<BotView> {
    return this.bots.update(account.id, botId, dto);
  }

  @Post(':botId/token')
  @HttpCode(200)
  @ApiOperation({ summary: 'Read the token issued at approval, once, within 7 days (then 410 TOKEN_ALREADY_READ)' })
  @ApiErrorResponses(
    [404, 'NOT_FOUND'],
    { status: 409, code: 'CONFLICT', when: 'not approved' },
    {
      status: 410,
      code: 'TOKEN_ALREADY_READ',
      when: 'already read, or more than 7 days after approval',
    },
  )
  @ApiOkResponse({ description: '`one_time_token` (plaintext, shown once) and `token_prefix`' })
  readToken(@CurrentAccount() account: Account, @Param('botId') botId: string): Promise<IssuedToken> {
    return this.credentials.readOnce(account.id, botId);
  }

  @Post(':botId/token/rotate')
  @HttpCode(200)
  @ApiOperation({ summary: 'Issue a new token and revoke the old one at once' })
  @ApiErrorResponses([404, 'NOT_FOUND'], { status: 409, code: 'CONFLICT', when: 'not approved' })
  @ApiOkResponse({ description: '`one_time_token` (the new plaintext, shown only here) and `token_prefix`' })
  rotateToken(@CurrentAccount() account: Account, @Param('botId') botId: string): Promise<IssuedToken> {
    return this.credentials.rotate(account.id, botId);
  }

  @Delete(':botId/token')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke the current token; rotate to get a working one again' })
  @ApiErrorResponses([404, 'NOT_FOUND'], { status: 409, code: 'CONFLICT', when: 'not approved' })
  @ApiOkResponse({ description: '`{ revoked: true }`' })
  async revokeToken(@CurrentAccount() account: Account, @Param('botId') botId: string): Promise<{ revoked: true }> {
    await this.credentials.revoke(account.id, botId);
    return { revoked: true };
  }
}
