import { Body, Controller, Get, HttpCode, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiPublic } from '@app/platform';
import type { Request } from 'express';
import { BotAuth } from '../bots/auth/bot-auth.decorators';
import { checkedTokenOf, CheckedTokenGuard } from '../bots/auth/checked-token.guard';
import { CurrentBot } from '../bots/auth/current-bot.decorator';
import { ApiErrors } from '../bot-errors';
import type { Bot } from '../bots/entities/bot.entity';
import { TRUE_SCHEMA } from '../method-docs';
import { CommandsService } from './commands.service';
import {
  BotCommandDto,
  CommandsSelectorDto,
  SetMyCommandsDto,
  SetMyDescriptionDto,
  SetMyNameDto,
  SetMyShortDescriptionDto,
  VerifyTokenDto,
} from './dto/profile.dto';
import { BotCommand } from './entities/bot-command-set.entity';
import { ProfileService } from './profile.service';
import { BotSelf, DescriptionView, NameView, ShortDescriptionView, VerifyTokenResult } from './profile.view';

const GET_ME = {
  description: 'The bot: id (its system user), bot_id, is_bot, name, username and profile',
  type: BotSelf,
};

/** Public: a bot's server checks its token without being authenticated by it. */
@ApiTags('bot methods: self and profile')
@ApiPublic()
@Controller('api/v1/bots')
export class VerifyTokenController {
  constructor(private readonly profile: ProfileService) {}

  @Post('verifyToken')
  @UseGuards(CheckedTokenGuard)
  @HttpCode(200)
  @ApiOperation({ summary: 'Check a bot token given in the body; answers only valid and bot_id' })
  @ApiErrors('VALIDATION', { code: 'BOT_TOKEN_REQUIRED', when: 'no token in the body' })
  @ApiOkResponse({ description: '`{ valid: true, bot_id }` or `{ valid: false }`', type: VerifyTokenResult })
  verifyToken(@Body() dto: VerifyTokenDto, @Req() req: Request): VerifyTokenResult {
    return this.profile.verifyToken(dto.token, checkedTokenOf(req)?.bot ?? null);
  }
}

@ApiTags('bot methods: self and profile')
@BotAuth()
@Controller('api/v1/bots')
export class ProfileController {
  constructor(
    private readonly profile: ProfileService,
    private readonly commands: CommandsService,
  ) {}

  @Get('me')
  @ApiOperation({ summary: 'getMe' })
  @ApiOkResponse(GET_ME)
  me(@CurrentBot() bot: Bot): BotSelf {
    return this.profile.me(bot);
  }

  @Get('getMe')
  @ApiOperation({ summary: 'getMe' })
  @ApiOkResponse(GET_ME)
  getMe(@CurrentBot() bot: Bot): BotSelf {
    return this.profile.me(bot);
  }

  @Post('getMe')
  @HttpCode(200)
  @ApiOperation({ summary: 'getMe' })
  @ApiOkResponse(GET_ME)
  postGetMe(@CurrentBot() bot: Bot): BotSelf {
    return this.profile.me(bot);
  }

  @Post('setMyName')
  @HttpCode(200)
  @ApiErrors('VALIDATION')
  @ApiOperation({ summary: 'setMyName: the display name the bot shows in chats (1 to 64 characters)' })
  @ApiOkResponse({ description: '`true`', schema: TRUE_SCHEMA })
  setMyName(@CurrentBot() bot: Bot, @Body() dto: SetMyNameDto): Promise<true> {
    return this.profile.setName(bot.id, dto.name);
  }

  @Get('getMyName')
  @ApiOperation({ summary: 'getMyName' })
  @ApiOkResponse({ description: '`{ name }`', type: NameView })
  getMyName(@CurrentBot() bot: Bot): Promise<NameView> {
    return this.profile.getName(bot.id);
  }

  @Post('getMyName')
  @HttpCode(200)
  @ApiOperation({ summary: 'getMyName' })
  @ApiOkResponse({ description: '`{ name }`', type: NameView })
  postGetMyName(@CurrentBot() bot: Bot): Promise<NameView> {
    return this.profile.getName(bot.id);
  }

  @Post('setMyShortDescription')
  @HttpCode(200)
  @ApiErrors('VALIDATION')
  @ApiOperation({ summary: 'setMyShortDescription (at most 120 characters; empty removes it)' })
  @ApiOkResponse({ description: '`true`', schema: TRUE_SCHEMA })
  setMyShortDescription(@CurrentBot() bot: Bot, @Body() dto: SetMyShortDescriptionDto): Promise<true> {
    return this.profile.setShortDescription(bot.id, dto.short_description);
  }

  @Get('getMyShortDescription')
  @ApiOperation({ summary: 'getMyShortDescription' })
  @ApiOkResponse({ description: '`{ short_description }`', type: ShortDescriptionView })
  getMyShortDescription(@CurrentBot() bot: Bot): Promise<ShortDescriptionView> {
    return this.profile.getShortDescription(bot.id);
  }

  @Post('getMyShortDescription')
  @HttpCode(200)
  @ApiOperation({ summary: 'getMyShortDescription' })
  @ApiOkResponse({ description: '`{ short_description }`', type: ShortDescriptionView })
  postGetMyShortDescription(@CurrentBot() bot: Bot): Promise<ShortDescriptionView> {
    return this.profile.getShortDescription(bot.id);
  }

  @Post('setMyDescription')
  @HttpCode(200)
  @ApiErrors('VALIDATION')
  @ApiOperation({ summary: 'setMyDescription (multi-line; empty removes it)' })
  @ApiOkResponse({ description: '`true`', schema: TRUE_SCHEMA })
  setMyDescription(@CurrentBot() bot: Bot, @Body() dto: SetMyDescriptionDto): Promise<true> {
    return this.profile.setDescription(bot.id, dto.description);
  }

  @Get('getMyDescription')
  @ApiOperation({ summary: 'getMyDescription' })
  @ApiOkResponse({ description: '`{ description }`', type: DescriptionView })
  getMyDescription(@CurrentBot() bot: Bot): Promise<DescriptionView> {
    return this.profile.getDescription(bot.id);
  }

  @Post('getMyDescription')
  @HttpCode(200)
  @ApiOperation({ summary: 'getMyDescription' })
  @ApiOkResponse({ description: '`{ description }`', type: DescriptionView })
  postGetMyDescription(@CurrentBot() bot: Bot): Promise<DescriptionView> {
    return this.profile.getDescription(bot.id);
  }

  @Post('setMyCommands')
  @HttpCode(200)
  @ApiErrors('VALIDATION')
  @ApiOperation({ summary: 'setMyCommands for one scope and language_code (replaces the list; empty deletes it)' })
  @ApiOkResponse({ description: '`true`', schema: TRUE_SCHEMA })
  setMyCommands(@CurrentBot() bot: Bot, @Body() dto: SetMyCommandsDto): Promise<true> {
    return this.commands.set(bot.id, dto);
  }

  @Get('getMyCommands')
  @ApiErrors('VALIDATION')
  @ApiOperation({ summary: 'getMyCommands of exactly one scope and language_code (scope as JSON in the query)' })
  @ApiOkResponse({ description: 'Array of `{ command, description }`', type: [BotCommandDto] })
  getMyCommands(@CurrentBot() bot: Bot, @Query() dto: CommandsSelectorDto): Promise<BotCommand[]> {
    return this.commands.get(bot.id, dto);
  }

  @Post('getMyCommands')
  @HttpCode(200)
  @ApiErrors('VALIDATION')
  @ApiOperation({ summary: 'getMyCommands of exactly one scope and language_code' })
  @ApiOkResponse({ description: 'Array of `{ command, description }`', type: [BotCommandDto] })
  postGetMyCommands(@CurrentBot() bot: Bot, @Body() dto: CommandsSelectorDto): Promise<BotCommand[]> {
    return this.commands.get(bot.id, dto);
  }

  @Post('deleteMyCommands')
  @HttpCode(200)
  @ApiErrors('VALIDATION')
  @ApiOperation({ summary: 'deleteMyCommands of one scope and language_code' })
  @ApiOkResponse({ description: '`true`', schema: TRUE_SCHEMA })
  deleteMyCommands(@CurrentBot() bot: Bot, @Body() dto: CommandsSelectorDto): Promise<true> {
    return this.commands.delete(bot.id, dto);
  }
}
