import { Injectable } from '@nestjs/common';
import type { Account } from '@app/auth';
import { Database } from '@app/platform';
import { BotErrors } from '../bot-errors';
import type { Bot } from '../bots/entities/bot.entity';
import { ChatsStore } from '../chats/chats.store';
import { BotConfig } from '../config/bot.config';
import { MessagesService } from '../messages/messages.service';
import type { ReplyMarkup } from '../messages/dto/reply-markup';
import { UpdatesService } from '../updates/updates.service';
import { userView } from '../users/person';
import { UsersStore } from '../users/users.store';
import { assertAnswered } from './answer-outcome';
import { ChatInstances } from './chat-instance';
import { AnswerCallbackQueryDto, CreateCallbackQueryDto } from './dto/interaction.dto';
import { CallbackQueriesStore } from './interaction-queries.store';
import { CallbackAnswerView, CallbackQueryStateView, CreatedQueryView } from './interaction.view';

export function hasCallbackButton(markup: ReplyMarkup | null, data: string): boolean {
  return markup?.inline_keyboard.some((row) => row.some((button) => button.callback_data === data)) ?? false;
}

/** Button clicks (spec 3.5, 6.1 callback_query): the user's click, the bot's one answer within the window. */
@Injectable()
export class CallbackQueriesService {
  constructor(
    private readonly database: Database,
    private readonly store: CallbackQueriesStore,
    private readonly chats: ChatsStore,
    private readonly messages: MessagesService,
    private readonly users: UsersStore,
    private readonly updates: UpdatesService,
    private readonly chatInstances: ChatInstances,
    private readonly config: BotConfig,
  ) {}

  /**
   * A click by an active member of the chat on a button of a bot's message: the query and its
   * callback_query Update to that bot are written in one transaction.
   */
  async click(account: Account, dto: CreateCallbackQueryDto): Promise<CreatedQueryView> {
    return this.database.transaction(async (tx) => {
      const { chat } = await this.chats.requireActiveMember(tx, dto.chat_id, account.id);
      const message = await this.messages.findInChat(tx, chat.id, dto.message_id);
      if (!hasCallbackButton(message.replyMarkup, dto.data)) {
        throw BotErrors.invalid('The message has no inline keyboard button with this callback_data', [
          { field: 'data', problem: 'no button of the message carries this callback_data' },
        ]);
      }
      const bot = await this.chats.botOfUser(tx, message.senderId, chat.id);
      if (!bot) throw BotErrors.notFound('Bot');
      const id = await this.store.insert(
        tx,
        { botId: bot.id, userId: account.id, chatId: chat.id, messageId: message.id, data: dto.data },
        this.config.CALLBACK_ANSWER_WINDOW_MS,
      );
      const from = userView(await this.users.person(tx, account.id));
      await this.updates.emit(tx, {
        bot,
        type: 'callback_query',
        payload: {
          callback_query: {
            id,
            from,
            message: { message_id: message.id, chat: { id: chat.id, type: chat.type } },
            data: dto.data,
            chat_instance: this.chatInstances.of(chat.id, bot.id),
          },
        },
      });
      return { id };
    });
  }

  /** One statement decides: exactly one of concurrent answers wins. */
  async answer(bot: Bot, dto: AnswerCallbackQueryDto): Promise<true> {
    const answer: CallbackAnswerView = {
      text: dto.text ?? null,
      show_alert: dto.show_alert ?? false,
      url: dto.url ?? null,
      cache_time: dto.cache_time ?? 0,
    };
    assertAnswered(await this.store.answer(this.database, dto.callback_query_id, bot.id, answer), 'Callback query');
    return true;
  }

  async read(account: Account, id: string): Promise<CallbackQueryStateView> {
    const query = await this.store.readForUser<CallbackAnswerView>(this.database, id, account.id);
    if (!query) throw BotErrors.notFound('Callback query');
    return query;
  }
}
