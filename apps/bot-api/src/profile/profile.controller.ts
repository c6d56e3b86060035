import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
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
@Controller('api/v1/bots')
export class VerifyTokenController {
  constructor(private readonly profile: ProfileService) {}

  @Post('verifyToken')
  @HttpCode(200)
  @ApiOperation({ summary: 'Check a bot token given in the body; answers only valid and bot_id' })
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
  me(@CurrentBot() bot: Bot): BotSelf {
    return this.profile.me(bot);
  }

  @Get('getMe')
  getMe(@CurrentBot() bot: Bot): BotSelf {
    return this.profile.me(bot);
  }

  @Post('getMe')
  @HttpCode(200)
  postGetMe(@CurrentBot() bot: Bot): BotSelf {
    return this.profile.me(bot);
  }

  @Post('setMyShortDescription')
  @HttpCode(200)
  setMyShortDescription(@CurrentBot() bot: Bot, @Body() dto: SetMyShortDescriptionDto): Promise<true> {
    return this.profile.setShortDescription(bot.id, dto.short_description);
  }

  @Get('getMyShortDescription')
  getMyShortDescription(@CurrentBot() bot: Bot): Promise<{ short_description: string }> {
    return this.profile.getShortDescription(bot.id);
  }

  @Post('getMyShortDescription')
  @HttpCode(200)
  postGetMyShortDescription(@CurrentBot() bot: Bot): Promise<{ short_description: string }> {
    return this.profile.getShortDescription(bot.id);
  }

  @Post('setMyDescription')
  @HttpCode(200)
  setMyDescription(@CurrentBot() bot: Bot, @Body() dto: SetMyDescriptionDto): Promise<true> {
    return this.profile.setDescription(bot.id, dto.description);
  }

  @Get('getMyDescription')
  getMyDescription(@CurrentBot() bot: Bot): Promise<{ description: string }> {
    return this.profile.getDescription(bot.id);
  }

  @Post('getMyDescription')
  @HttpCode(200)
  postGetMyDescription(@CurrentBot() bot: Bot): Promise<{ description: string }> {
    return this.profile.getDescription(bot.id);
  }

  @Post('setMyCommands')
  @HttpCode(200)
  setMyCommands(@CurrentBot() bot: Bot, @Body() dto: SetMyCommandsDto): Promise<true> {
    return this.commands.set(bot.id, dto);
  }

  @Get('getMyCommands')
  getMyCommands(@CurrentBot() bot: Bot, @Query() dto: CommandsSelectorDto): Promise<BotCommand[]> {
    return this.commands.get(bot.id, dto);
  }

  @Post('getMyCommands')
  @HttpCode(200)
  postGetMyCommands(@CurrentBot() bot: Bot, @Body() dto: CommandsSelectorDto): Promise<BotCommand[]> {
    return this.commands.get(bot.id, dto);
  }

  @Post('deleteMyCommands')
  @HttpCode(200)
  deleteMyCommands(@CurrentBot() bot: Bot, @Body() dto: CommandsSelectorDto): Promise<true> {
    return this.commands.delete(bot.id, dto);
  }
}
