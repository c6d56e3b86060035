import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount } from '@app/auth';
import { ApiErrors } from '../bot-errors';
import { BotCredentialsService } from './bot-credentials.service';
import { BotPage, BotView, IssuedToken, RevokedTokenView } from './bot.view';
import { BotsService } from './bots.service';
import { PageQueryDto } from '@app/platform';
import { SubmitBotDto } from './dto/submit-bot.dto';
import { UpdateBotDto } from './dto/update-bot.dto';

@ApiTags('developer bots')
@ApiBearerAuth()
@ApiErrors({ code: 'UNAUTHORIZED', when: 'no valid account JWT (bot tokens are refused)' })
@UseGuards(AccountGuard)
@Controller('api/v1/bots/my')
export class BotsController {
  constructor(
    private readonly bots: BotsService,
    private readonly credentials: BotCredentialsService,
  ) {}

  @Post()
  @ApiOperation({ summary: 'Apply for a bot; it waits for staff review' })
  @ApiErrors('VALIDATION', { code: 'CONFLICT', when: 'username taken' })
  @ApiCreatedResponse({ description: 'The bot object with review_status pending', type: BotView })
  submit(@CurrentAccount() account: Account, @Body() dto: SubmitBotDto): Promise<BotView> {
    return this.bots.submit(account.id, dto);
  }

  @Get()
  @ApiOperation({ summary: 'List my bots with status and token prefix' })
  @ApiErrors('VALIDATION')
  @ApiOkResponse({
    description: '`items` (bots with status and token_prefix), `total`, `page`, `pageSize`',
    type: BotPage,
  })
  list(@CurrentAccount() account: Account, @Query() query: PageQueryDto): Promise<BotPage> {
    return this.bots.list(account.id, query);
  }

  @Get(':botId')
  @ApiErrors('NOT_FOUND')
  @ApiOperation({ summary: 'One of my bots' })
  @ApiOkResponse({ description: 'The bot object', type: BotView })
  get(@CurrentAccount() account: Account, @Param('botId') botId: string): Promise<BotView> {
    return this.bots.get(account.id, botId);
  }

  @Patch(':botId')
  @ApiOperation({ summary: 'Change an approved bot' })
  @ApiErrors('VALIDATION', 'NOT_FOUND', { code: 'CONFLICT', when: 'not approved yet, or username taken' })
  @ApiOkResponse({ description: 'The changed bot object', type: BotView })
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
  @ApiErrors(
    'NOT_FOUND',
    { code: 'CONFLICT', when: 'not approved' },
    { code: 'TOKEN_ALREADY_READ', when: 'already read, or more than 7 days after approval' },
  )
  @ApiOkResponse({ description: '`one_time_token` (plaintext, shown once) and `token_prefix`', type: IssuedToken })
  readToken(@CurrentAccount() account: Account, @Param('botId') botId: string): Promise<IssuedToken> {
    return this.credentials.readOnce(account.id, botId);
  }

  @Post(':botId/token/rotate')
  @HttpCode(200)
  @ApiOperation({ summary: 'Issue a new token and revoke the old one at once' })
  @ApiErrors('NOT_FOUND', { code: 'CONFLICT', when: 'not approved' })
  @ApiOkResponse({
    description: '`one_time_token` (the new plaintext, shown only here) and `token_prefix`',
    type: IssuedToken,
  })
  rotateToken(@CurrentAccount() account: Account, @Param('botId') botId: string): Promise<IssuedToken> {
    return this.credentials.rotate(account.id, botId);
  }

  @Delete(':botId/token')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke the current token; rotate to get a working one again' })
  @ApiErrors('NOT_FOUND', { code: 'CONFLICT', when: 'not approved' })
  @ApiOkResponse({ description: '`{ revoked: true }`', type: RevokedTokenView })
  async revokeToken(@CurrentAccount() account: Account, @Param('botId') botId: string): Promise<RevokedTokenView> {
    await this.credentials.revoke(account.id, botId);
    return { revoked: true };
  }
}
