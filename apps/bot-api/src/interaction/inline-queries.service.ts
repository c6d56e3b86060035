import { Injectable } from '@nestjs/common';
import type { Account } from '@app/auth';
import { Database } from '@app/platform';
import { BotErrors } from '../bot-errors';
import { BotsStore } from '../bots/bots.store';
import type { Bot } from '../bots/entities/bot.entity';
import { ChatsStore } from '../chats/chats.store';
import { BotConfig } from '../config/bot.config';
import { UpdatesService } from '../updates/updates.service';
import { userView } from '../users/person';
import { UsersStore } from '../users/users.store';
import { assertAnswered } from './answer-outcome';
import { AnswerInlineQueryDto, CreateInlineQueryDto } from './dto/interaction.dto';
import { parseInlineResults } from './inline-results';
import { InlineQueriesStore } from './interaction-queries.store';
import { CreatedQueryView, InlineAnswerView, InlineQueryStateView, InlineQueryUpdateView } from './interaction.view';

const DEFAULT_CACHE_TIME = 300;

/** Inline mode (spec 6.1 inline_query): a user's query to a bot that supports it, the bot's one answer. */
@Injectable()
export class InlineQueriesService {
  constructor(
    private readonly database: Database,
    private readonly store: InlineQueriesStore,
    private readonly bots: BotsStore,
    private readonly chats: ChatsStore,
    private readonly users: UsersStore,
    private readonly updates: UpdatesService,
    private readonly config: BotConfig,
  ) {}

  /**
   * 404 when no available bot has the username; 400 INLINE_NOT_SUPPORTED when the bot has not switched
   * supports_inline_queries on. The query and its inline_query Update are written in one transaction.
   */
  async ask(account: Account, dto: CreateInlineQueryDto): Promise<CreatedQueryView> {
    return this.database.transaction(async (tx) => {
      const bot = await this.bots.availableByUsername(tx, dto.bot_username.replace(/^@/, ''));
      if (!bot) throw BotErrors.notFound('Bot');
      if (!bot.supportsInlineQueries) {
        throw BotErrors.error('INLINE_NOT_SUPPORTED', `@${bot.username} does not support inline queries`);
      }
      let chatType: InlineQueryUpdateView['chat_type'] = 'sender';
      if (dto.chat_id !== undefined) {
        chatType = (await this.chats.requireActiveMember(tx, dto.chat_id, account.id)).chat.type;
      }
      const offset = dto.offset ?? '';
      const id = await this.store.insert(
        tx,
        { botId: bot.id, userId: account.id, query: dto.query, offset },
        this.config.CALLBACK_ANSWER_WINDOW_MS,
      );
      const from = userView(await this.users.person(tx, account.id));
      await this.updates.emit(tx, {
        bot,
        type: 'inline_query',
        payload: { inline_query: { id, from, query: dto.query, offset, chat_type: chatType } },
      });
      return { id };
    });
  }

  /** Only article results with an InputTextMessageContent; one statement decides the one answer. */
  async answer(bot: Bot, dto: AnswerInlineQueryDto): Promise<true> {
    const answer: InlineAnswerView = {
      results: parseInlineResults(dto.results),
      cache_time: dto.cache_time ?? DEFAULT_CACHE_TIME,
      is_personal: dto.is_personal ?? false,
      next_offset: dto.next_offset ?? '',
    };
    assertAnswered(await this.store.answer(this.database, dto.inline_query_id, bot.id, answer), 'Inline query');
    return true;
  }

  async read(account: Account, id: string): Promise<InlineQueryStateView> {
    const query = await this.store.readForUser<InlineAnswerView>(this.database, id, account.id);
    if (!query) throw BotErrors.notFound('Inline query');
    return { id: query.id, status: query.status, query: query.query, offset: query.offset, answer: query.answer };
  }
}
