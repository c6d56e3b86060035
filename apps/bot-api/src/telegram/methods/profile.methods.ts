import { Injectable } from '@nestjs/common';
import { CallbackQueriesService } from '../../interaction/callback-queries.service';
import { AnswerCallbackQueryDto, AnswerInlineQueryDto } from '../../interaction/dto/interaction.dto';
import { InlineQueriesService } from '../../interaction/inline-queries.service';
import { CommandsService } from '../../profile/commands.service';
import {
  CommandsSelectorDto,
  SetMyCommandsDto,
  SetMyDescriptionDto,
  SetMyNameDto,
  SetMyShortDescriptionDto,
} from '../../profile/dto/profile.dto';
import { ProfileService } from '../../profile/profile.service';
import { nativeDto } from '../native-dto';
import type { TelegramArgs } from '../telegram-args';
import type { TelegramMethod, TelegramMethodGroup } from '../telegram-call';
import { TelegramError } from '../telegram-errors';
import { TelegramIdsService } from '../telegram-ids.service';

/**
 * A bot here has one name for every language: a language_code would set or read a per-language name
 * that does not exist, so it is refused rather than answered with the one name.
 */
function noLanguages(args: TelegramArgs): void {
  if (args.has('language_code')) throw TelegramError.badRequest('names per language are not supported; omit language_code');
}

/** Answers to button clicks and inline queries, and the bot's commands and description. */
@Injectable()
export class ProfileMethods implements TelegramMethodGroup {
  constructor(
    private readonly callbacks: CallbackQueriesService,
    private readonly inline: InlineQueriesService,
    private readonly commands: CommandsService,
    private readonly profile: ProfileService,
    private readonly ids: TelegramIdsService,
  ) {}

  methods(): Record<string, TelegramMethod> {
    return {
      answerCallbackQuery: async ({ bot, args }) =>
        this.callbacks.answer(
          bot,
          await nativeDto(AnswerCallbackQueryDto, {
            callback_query_id: args.requiredString('callback_query_id'),
            text: args.string('text'),
            show_alert: args.bool('show_alert'),
            url: args.string('url'),
            cache_time: args.int('cache_time'),
          }),
        ),
      answerInlineQuery: async ({ bot, args }) =>
        this.inline.answer(
          bot,
          await nativeDto(AnswerInlineQueryDto, {
            inline_query_id: args.requiredString('inline_query_id'),
            results: args.json('results', 'inline query results JSON array'),
            cache_time: args.int('cache_time'),
            is_personal: args.bool('is_personal'),
            next_offset: args.string('next_offset'),
          }),
        ),
      setMyCommands: async ({ bot, args }) =>
        this.commands.set(
          bot.id,
          await nativeDto(SetMyCommandsDto, {
            ...(await this.selector(args)),
            commands: args.json('commands', 'commands JSON array'),
          }),
        ),
      getMyCommands: async ({ bot, args }) =>
        this.commands.get(bot.id, await nativeDto(CommandsSelectorDto, await this.selector(args))),
      deleteMyCommands: async ({ bot, args }) =>
        this.commands.delete(bot.id, await nativeDto(CommandsSelectorDto, await this.selector(args))),
      setMyDescription: async ({ bot, args }) => {
        const dto = await nativeDto(SetMyDescriptionDto, { description: args.string('description') });
        return this.profile.setDescription(bot.id, dto.description);
      },
      getMyDescription: ({ bot }) => this.profile.getDescription(bot.id),
      setMyShortDescription: async ({ bot, args }) => {
        const dto = await nativeDto(SetMyShortDescriptionDto, { short_description: args.string('short_description') });
        return this.profile.setShortDescription(bot.id, dto.short_description);
      },
      getMyShortDescription: ({ bot }) => this.profile.getShortDescription(bot.id),
      setMyName: async ({ bot, args }) => {
        noLanguages(args);
        const dto = await nativeDto(SetMyNameDto, { name: args.string('name') ?? '' });
        return this.profile.setName(bot.id, dto.name);
      },
      getMyName: async ({ bot, args }) => {
        noLanguages(args);
        return this.profile.getName(bot.id);
      },
    };
  }

  /** Telegram's BotCommandScope with integer chat_id and user_id, in native ids. */
  private async selector(args: TelegramArgs): Promise<Record<string, unknown>> {
    const scope = args.json('scope', 'bot command scope JSON object');
    const languageCode = args.string('language_code');
    if (scope === undefined) return { language_code: languageCode };
    if (typeof scope !== 'object' || scope === null || Array.isArray(scope)) {
      throw TelegramError.badRequest("can't parse bot command scope JSON object");
    }
    const { chat_id: chatId, user_id: userId, ...rest } = scope as Record<string, unknown>;
    const native: Record<string, unknown> = { ...rest };
    if (chatId !== undefined) {
      const ref =
        typeof chatId === 'string' && chatId.startsWith('@') ? { username: chatId.slice(1) } : { id: Number(chatId) };
      if ('id' in ref && !Number.isSafeInteger(ref.id))
        throw TelegramError.badRequest('scope.chat_id must be an integer');
      native.chat_id = await this.ids.chatOf(ref);
    }
    if (userId !== undefined) {
      if (!Number.isSafeInteger(Number(userId))) throw TelegramError.badRequest('scope.user_id must be an integer');
      native.user_id = await this.ids.userOf(Number(userId));
    }
    return { scope: native, language_code: languageCode };
  }
}
