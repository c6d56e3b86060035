import type { Bot } from '../bots/entities/bot.entity';
import type { TelegramArgs } from './telegram-args';

/** One authenticated call of the Telegram face: the bot, its token's hash and the parameters. */
export interface TelegramCall {
  bot: Bot;
  tokenHash: string;
  args: TelegramArgs;
}

/** A method of the Telegram face: returns the `result` of `{ ok: true, result }`. */
export type TelegramMethod = (call: TelegramCall) => Promise<unknown>;

/** A group of methods, by their names as Telegram spells them. */
export interface TelegramMethodGroup {
  methods(): Record<string, TelegramMethod>;
}
