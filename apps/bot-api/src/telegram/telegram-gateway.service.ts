import { Injectable } from '@nestjs/common';
import { ChatsMethods } from './methods/chats.methods';
import { MediaMethods } from './methods/media.methods';
import { MessagesMethods } from './methods/messages.methods';
import { ProfileMethods } from './methods/profile.methods';
import { UpdatesMethods } from './methods/updates.methods';
import type { TelegramCall, TelegramMethod, TelegramMethodGroup } from './telegram-call';
import { TelegramError, TELEGRAM_TEXTS } from './telegram-errors';

/** Every method of the Telegram face by its lower-cased name: Telegram matches method names case-insensitively. */
@Injectable()
export class TelegramGatewayService {
  private readonly table = new Map<string, TelegramMethod>();

  constructor(
    updates: UpdatesMethods,
    messages: MessagesMethods,
    media: MediaMethods,
    chats: ChatsMethods,
    profile: ProfileMethods,
  ) {
    const groups: TelegramMethodGroup[] = [updates, messages, media, chats, profile];
    for (const group of groups) {
      for (const [name, method] of Object.entries(group.methods())) this.table.set(name.toLowerCase(), method);
    }
  }

  /** Names as Telegram spells them are kept by the groups; this answers whether one exists. */
  has(method: string): boolean {
    return this.table.has(method.toLowerCase());
  }

  run(method: string, call: TelegramCall): Promise<unknown> {
    const handler = this.table.get(method.toLowerCase());
    if (!handler) throw new TelegramError(404, TELEGRAM_TEXTS.methodNotFound);
    return handler(call);
  }
}
