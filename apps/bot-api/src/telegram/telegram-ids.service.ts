import { Injectable } from '@nestjs/common';
import { TelegramIds, withAliases } from '@app/telegram-shapes';
import { DeliveryDomain } from '@app/bot-delivery';
import type { ChatRef } from './telegram-args';
import { TelegramError, TELEGRAM_TEXTS } from './telegram-errors';

/**
 * Integer ids in and out of the Telegram face. An alias names a chat or user, nothing more: whether
 * the bot may see it is decided by the native service the call goes to, exactly as for a uuid, so an
 * alias of another tenant's chat answers `chat not found` like an alias that was never given.
 */
@Injectable()
export class TelegramIdsService {
  constructor(private readonly delivery: DeliveryDomain) {}

  /** The native chat uuid of a Telegram chat_id (group ids are negative). */
  async chatOf(ref: ChatRef): Promise<string> {
    // Chats of this service have no public @usernames, so such a reference names no chat.
    if (!('id' in ref)) throw new TelegramError(400, TELEGRAM_TEXTS.chatNotFound);
    const native = await this.delivery.nativeOfAlias('chat', Math.abs(ref.id));
    if (!native) throw new TelegramError(400, TELEGRAM_TEXTS.chatNotFound);
    return native;
  }

  /** The native user id of a Telegram user_id. */
  async userOf(id: number): Promise<string> {
    const native = await this.delivery.nativeOfAlias('user', id);
    if (!native) throw TelegramError.badRequest('user not found');
    return native;
  }

  /** Builds a Telegram object with every alias it needs looked up (and given) in one round trip per kind. */
  present<T>(build: (ids: TelegramIds) => T): Promise<T> {
    return withAliases(build, (wanted) => this.delivery.telegramAliasesOf(wanted));
  }
}
