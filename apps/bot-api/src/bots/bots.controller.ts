import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount } from '@app/auth';
import { BotCredentialsService, IssuedToken } from './bot-credentials.service';
import { BotView, Page } from './bot.view';
import { BotsService } from './bots.service';
import { PageQueryDto } from './dto/page-query.dto';
import { SubmitBotDto } from './dto/submit-bot.dto';
import { UpdateBotDto } from './dto/update-bot.dto';

@ApiTags('developer bots')
@ApiBearerAuth()
@UseGuards(AccountGuard)
@Controller('api/v1/bots/my')
export class BotsController {
  constructor(
    private readonly bots: BotsService,
    private readonly credentials: BotCredentialsService,
  ) {}

  @Post()
  @ApiOperation({ summary: 'Apply for a bot; it waits for staff review' })
  submit(@CurrentAccount() account: Account, @Body() dto: SubmitBotDto): Promise<BotView> {
    return this.bots.submit(account.id, dto);
  }

  @Get()
  @ApiOperation({ summary: 'List my bots with status and token prefix' })
  list(@CurrentAccount() account: Account, @Query() query: PageQueryDto): Promise<Page<BotView>> {
    return this.bots.list(account.id, query);
  }

  @Get(':botId')
  get(@CurrentAccount() account: Account, @Param('botId') botId: string): Promise<BotView> {
    return this.bots.get(account.id, botId);
  }

  @Patch(':botId')
  @ApiOperation({ summary: 'Change an approved bot' })
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
  readToken(@CurrentAccount() account: Account, @Param('botId') botId: string): Promise<IssuedToken> {
    return this.credentials.readOnce(account.id, botId);
  }

  @Post(':botId/token/rotate')
  @HttpCode(200)
  @ApiOperation({ summary: 'Issue a new token and revoke the old one at once' })
  rotateToken(@CurrentAccount() account: Account, @Param('botId') botId: string): Promise<IssuedToken> {
    return this.credentials.rotate(account.id, botId);
  }

  @Delete(':botId/token')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke the current token; rotate to get a working one again' })
  async revokeToken(@CurrentAccount() account: Account, @Param('botId') botId: string): Promise<{ revoked: true }> {
    await this.credentials.revoke(account.id, botId);
    return { revoked: true };
  }
}
