import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponses, ApiPublic } from '@app/platform';
import { BotAuth } from '../bot-auth/bot-auth.decorators';
import { CurrentBot } from '../bot-auth/current-bot.decorator';
import type { Bot } from '../bots/entities/bot.entity';
import { CommandsService } from './commands.service';
import {
  CommandsSelectorDto,
  SetMyCommandsDto,
  SetMyDescriptionDto,
  SetMyShortDescriptionDto,
  VerifyTokenDto,
} from './dto/profile.dto';
import { BotCommand } from './entities/bot-command-set.entity';
import { BotSelf, ProfileService } from './profile.service';

/** Public: a bot's server checks its token without being authenticated by it. */
@ApiTags('bot methods: self and profile')
@ApiPublic()
@Controller('api/v1/bots')
export class VerifyTokenController {
  constructor(private readonly profile: ProfileService) {}

  @Post('verifyToken')
  @HttpCode(200)
  @ApiOperation({ summary: 'Check a bot token given in the body; answers only valid and bot_id' })
  @ApiErrorResponses([400, 'VALIDATION'], { status: 401, code: 'BOT_TOKEN_REQUIRED', when: 'no token in the body' })
  @ApiOkResponse({ description: '`{ valid: true, bot_id }` or `{ valid: false }`' })
  verifyToken(@Body() dto: VerifyTokenDto): Promise<{ valid: boolean; bot_id?: string }> {
    return this.profile.verifyToken(dto.token);
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
  @ApiOkResponse({ description: 'The bot: id (its system user), bot_id, is_bot, name, username and profile' })
  me(@CurrentBot() bot: Bot): BotSelf {
    return this.profile.me(bot);
  }

  @Get('getMe')
  @ApiOperation({ summary: 'getMe' })
  @ApiOkResponse({ description: 'The bot: id (its system user), bot_id, is_bot, name, username and profile' })
  getMe(@CurrentBot() bot: Bot): BotSelf {
    return this.profile.me(bot);
  }

  @Post('getMe')
  @HttpCode(200)
  @ApiOperation({ summary: 'getMe' })
  @ApiOkResponse({ description: 'The bot: id (its system user), bot_id, is_bot, name, username and profile' })
  postGetMe(@CurrentBot() bot: Bot): BotSelf {
    return this.profile.me(bot);
  }

  @Post('setMyShortDescription')
  @HttpCode(200)
  @ApiErrorResponses([400, 'VALIDATION'])
  @ApiOperation({ summary: 'setMyShortDescription (at most 120 characters; empty removes it)' })
  @ApiOkResponse({ description: '`true`' })
  setMyShortDescription(@CurrentBot() bot: Bot, @Body() dto: SetMyShortDescriptionDto): Promise<true> {
    return this.profile.setShortDescription(bot.id, dto.short_description);
  }

  @Get('getMyShortDescription')
  @ApiOperation({ summary: 'getMyShortDescription' })
  @ApiOkResponse({ description: '`{ short_description }`' })
  getMyShortDescription(@CurrentBot() bot: Bot): Promise<{ short_description: string }> {
    return this.profile.getShortDescription(bot.id);
  }

  @Post('getMyShortDescription')
  @HttpCode(200)
  @ApiOperation({ summary: 'getMyShortDescription' })
  @ApiOkResponse({ description: '`{ short_description }`' })
  postGetMyShortDescription(@CurrentBot() bot: Bot): Promise<{ short_description: string }> {
    return this.profile.getShortDescription(bot.id);
  }

  @Post('setMyDescription')
  @HttpCode(200)
  @ApiErrorResponses([400, 'VALIDATION'])
  @ApiOperation({ summary: 'setMyDescription (multi-line; empty removes it)' })
  @ApiOkResponse({ description: '`true`' })
  setMyDescription(@CurrentBot() bot: Bot, @Body() dto: SetMyDescriptionDto): Promise<true> {
    return this.profile.setDescription(bot.id, dto.description);
  }

  @Get('getMyDescription')
  @ApiOperation({ summary: 'getMyDescription' })
  @ApiOkResponse({ description: '`{ description }`' })
  getMyDescription(@CurrentBot() bot: Bot): Promise<{ description: string }> {
    return this.profile.getDescription(bot.id);
  }

  @Post('getMyDescription')
  @HttpCode(200)
  @ApiOperation({ summary: 'getMyDescription' })
  @ApiOkResponse({ description: '`{ description }`' })
  postGetMyDescription(@CurrentBot() bot: Bot): Promise<{ description: string }> {
    return this.profile.getDescription(bot.id);
  }

  @Post('setMyCommands')
  @HttpCode(200)
  @ApiErrorResponses([400, 'VALIDATION'])
  @ApiOperation({ summary: 'setMyCommands for one scope and language_code (replaces the list; empty deletes it)' })
  @ApiOkResponse({ description: '`true`' })
  setMyCommands(@CurrentBot() bot: Bot, @Body() dto: SetMyCommandsDto): Promise<true> {
    return this.commands.set(bot.id, dto);
  }

  @Get('getMyCommands')
  @ApiErrorResponses([400, 'VALIDATION'])
  @ApiOperation({ summary: 'getMyCommands of exactly one scope and language_code (scope as JSON in the query)' })
  @ApiOkResponse({ description: 'Array of `{ command, description }`' })
  getMyCommands(@CurrentBot() bot: Bot, @Query() dto: CommandsSelectorDto): Promise<BotCommand[]> {
    return this.commands.get(bot.id, dto);
  }

  @Post('getMyCommands')
  @HttpCode(200)
  @ApiErrorResponses([400, 'VALIDATION'])
  @ApiOperation({ summary: 'getMyCommands of exactly one scope and language_code' })
  @ApiOkResponse({ description: 'Array of `{ command, description }`' })
  postGetMyCommands(@CurrentBot() bot: Bot, @Body() dto: CommandsSelectorDto): Promise<BotCommand[]> {
    return this.commands.get(bot.id, dto);
  }

  @Post('deleteMyCommands')
  @HttpCode(200)
  @ApiErrorResponses([400, 'VALIDATION'])
  @ApiOperation({ summary: 'deleteMyCommands of one scope and language_code' })
  @ApiOkResponse({ description: '`true`' })
  deleteMyCommands(@CurrentBot() bot: Bot, @Body() dto: CommandsSelectorDto): Promise<true> {
    return this.commands.delete(bot.id, dto);
  }
}
