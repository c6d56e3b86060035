import { Injectable } from '@nestjs/common';
import { NativeMessage, parseModeOf, toTelegramMessage, TelegramObject } from '@app/telegram-shapes';
import type { Bot } from '../bots/entities/bot.entity';
import type { MessageView } from '../messages/dto/message.view';
import { SEND_SCOPE } from '../quotas/send-quota.guard';
import { SendQuotaService } from '../quotas/send-quota.service';
import type { ReplyMarkup } from '../messages/dto/reply-markup';
import type { TelegramArgs } from './telegram-args';
import { TelegramError } from './telegram-errors';
import { TelegramIdsService } from './telegram-ids.service';

/** What every Telegram send takes besides its content, already in native terms. */
export interface SendTarget {
  chat_id: string;
  reply_to_message_id?: number;
  reply_markup?: ReplyMarkup;
}

/**
 * reply_markup as Telegram sends it. Only inline keyboards exist here; `remove_keyboard` and
 * `force_reply` have nothing to remove or force and are ignored, a custom reply keyboard is refused.
 */
export function replyMarkupOf(args: TelegramArgs, name = 'reply_markup'): ReplyMarkup | undefined {
  const markup = args.json(name, 'reply keyboard markup JSON object');
  if (markup === undefined) return undefined;
  if (typeof markup !== 'object' || markup === null || Array.isArray(markup)) {
    throw TelegramError.badRequest("can't parse reply keyboard markup JSON object");
  }
  const fields = markup as Record<string, unknown>;
  if ('inline_keyboard' in fields) return { inline_keyboard: inlineKeyboardOf(fields.inline_keyboard) };
  if ('keyboard' in fields)
    throw TelegramError.badRequest('custom reply keyboards are not supported; use inline_keyboard');
  return undefined;
}

/**
 * reply_markup of an edit (text, caption, media, reply markup, stopPoll): Telegram removes the inline
 * keyboard when the edit carries none, so an absent one is `null` (removes) for the native edit, whose
 * omitted reply_markup would keep the buttons.
 */
export function editedReplyMarkupOf(args: TelegramArgs): ReplyMarkup | null {
  return replyMarkupOf(args) ?? null;
}

/** InlineKeyboardButton fields Telegram defines that have no counterpart here. */
const UNSUPPORTED_BUTTON_FIELDS = [
  'login_url',
  'switch_inline_query',
  'switch_inline_query_current_chat',
  'switch_inline_query_chosen_chat',
  'web_app',
  'callback_game',
  'pay',
  'copy_text',
];

/**
 * Buttons in native terms: text, callback_data and url are kept; Telegram's other button kinds are
 * refused, and fields Telegram does not define (a framework's own, e.g. Telegraf's `hide`) are dropped
 * as Telegram drops them. Anything that is not rows of objects goes on to the native check as it is.
 */
function inlineKeyboardOf(rows: unknown): ReplyMarkup['inline_keyboard'] {
  if (!Array.isArray(rows)) return rows as ReplyMarkup['inline_keyboard'];
  return rows.map((row: unknown) => {
    if (!Array.isArray(row)) return row;
    return row.map((button: unknown) => {
      if (typeof button !== 'object' || button === null || Array.isArray(button)) return button;
      const fields = button as Record<string, unknown>;
      const unsupported = UNSUPPORTED_BUTTON_FIELDS.find((name) => fields[name] !== undefined);
      if (unsupported) throw TelegramError.badRequest(`inline keyboard buttons with ${unsupported} are not supported`);
      const { text, callback_data: callbackData, url } = fields;
      return Object.fromEntries(
        Object.entries({ text, callback_data: callbackData, url }).filter(([, value]) => value !== undefined),
      );
    });
  }) as ReplyMarkup['inline_keyboard'];
}

/**
 * How a text or caption is formatted: `entities` (or `caption_entities`) win over `parse_mode`, as in
 * Telegram; the native operation parses or checks them. An unknown parse_mode is Telegram's refusal.
 */
export function formattingOf(
  args: TelegramArgs,
  entitiesName: 'entities' | 'caption_entities',
): Record<string, unknown> {
  return formatting(args.json(entitiesName, 'message entities JSON array'), args.string('parse_mode'), entitiesName);
}

/** `formattingOf` for the fields of an object parameter (an InputMedia's caption_entities and parse_mode). */
export function formatting(entities: unknown, parseMode: unknown, entitiesName: string): Record<string, unknown> {
  if (entities !== undefined) return { [entitiesName]: entities };
  if (parseMode === undefined) return {};
  // Telegram matches parse_mode case-insensitively; an empty one means plain text.
  const mode = typeof parseMode === 'string' ? parseModeOf(parseMode) : undefined;
  if (mode === undefined) throw TelegramError.badRequest('unsupported parse_mode');
  return mode === null ? {} : { parse_mode: mode };
}

/** The message replied to: `reply_to_message_id`, or `reply_parameters.message_id` in the same chat. */
export function replyToOf(args: TelegramArgs): number | undefined {
  const direct = args.int('reply_to_message_id');
  if (direct !== undefined) return direct;
  const parameters = args.json('reply_parameters', 'reply parameters JSON object');
  if (parameters === undefined) return undefined;
  const messageId = (parameters as { message_id?: unknown } | null)?.message_id;
  if (typeof messageId !== 'number' || !Number.isSafeInteger(messageId)) {
    throw TelegramError.badRequest('reply_parameters.message_id must be an integer');
  }
  if ((parameters as { chat_id?: unknown }).chat_id !== undefined) {
    throw TelegramError.badRequest('replies to messages of another chat are not supported');
  }
  return messageId;
}

/**
 * The parts of the native send routes that run before the operation (the scope guard and the send
 * quota guard), and Telegram's Message of what the operation returns.
 */
@Injectable()
export class TelegramSends {
  constructor(
    private readonly quotas: SendQuotaService,
    private readonly ids: TelegramIdsService,
  ) {}

  /** Same rule as RequireScopes('messages:send'). */
  requireSendScope(bot: Bot): void {
    if (!bot.scopes.includes(SEND_SCOPE))
      throw new TelegramError(403, `Forbidden: the bot lacks the scope ${SEND_SCOPE}`);
  }

  /** Scope, then the send quotas (429 with retry_after), as on the native send routes. */
  async admit(bot: Bot, sends = 1): Promise<void> {
    this.requireSendScope(bot);
    await this.quotas.consume(bot, sends);
  }

  async target(args: TelegramArgs): Promise<SendTarget> {
    return {
      chat_id: await this.ids.chatOf(args.chat()),
      reply_to_message_id: replyToOf(args),
      reply_markup: replyMarkupOf(args),
    };
  }

  message(view: MessageView): Promise<TelegramObject> {
    return this.ids.present((ids) => toTelegramMessage(view as NativeMessage, ids));
  }

  messages(views: MessageView[]): Promise<TelegramObject[]> {
    return this.ids.present((ids) => views.map((view) => toTelegramMessage(view as NativeMessage, ids)));
  }
}
