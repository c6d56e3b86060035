import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiExtraModels, ApiTags } from '@nestjs/swagger';
import { BotAuth, CurrentBot } from '../bots/auth';
import { BotErrorDoc } from '../bot-errors';
import type { Bot } from '../bots/entities/bot.entity';
import { BOT_NOT_AVAILABLE, MethodDocs, SuccessDoc, TRUE_SCHEMA } from '../method-docs';
import { CallbackQueriesService } from './callback-queries.service';
import { AnswerCallbackQueryDto, AnswerInlineQueryDto } from './dto/interaction.dto';
import { InlineQueriesService } from './inline-queries.service';
import { InlineQueryResultArticle } from './interaction.view';

const TRUE: SuccessDoc = { status: 200, description: '`true`', schema: TRUE_SCHEMA };
const answerErrors = (what: string, validation: string): BotErrorDoc[] => [
  { code: 'VALIDATION', when: validation },
  BOT_NOT_AVAILABLE,
  { code: 'NOT_FOUND', when: `no ${what} of this bot has this id` },
  { code: 'CONFLICT', when: `the ${what} was already answered` },
  {
    code: 'QUERY_EXPIRED',
    when: `the answer window (CALLBACK_ANSWER_WINDOW_MS, 5 s by default) of the ${what} has passed`,
  },
];

/** Bot side of spec 4.2 "Interaction": one answer per query, within the answer window. */
@ApiTags('bot interaction')
@ApiExtraModels(InlineQueryResultArticle)
@BotAuth()
@Controller('api/v1/bots')
export class InteractionController {
  constructor(
    private readonly callbacks: CallbackQueriesService,
    private readonly inline: InlineQueriesService,
  ) {}

  @Post('answerCallbackQuery')
  @HttpCode(200)
  @MethodDocs(
    'answerCallbackQuery: answer a button click once, within the answer window; the user reads the answer',
    TRUE,
    ...answerErrors('callback query', 'a field is missing or malformed (url must be HTTPS)'),
  )
  answerCallbackQuery(@CurrentBot() bot: Bot, @Body() dto: AnswerCallbackQueryDto): Promise<true> {
    return this.callbacks.answer(bot, dto);
  }

  @Post('answerInlineQuery')
  @HttpCode(200)
  @MethodDocs(
    'answerInlineQuery: up to 50 `article` results with an InputTextMessageContent, once, within the answer window',
    TRUE,
    ...answerErrors(
      'inline query',
      'a result that is not an article with InputTextMessageContent, a duplicate id or more than 50 results; ' +
        'the message names the first offending result by index and id',
    ),
  )
  answerInlineQuery(@CurrentBot() bot: Bot, @Body() dto: AnswerInlineQueryDto): Promise<true> {
    return this.inline.answer(bot, dto);
  }
}
