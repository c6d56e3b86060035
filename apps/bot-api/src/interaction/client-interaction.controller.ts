import { Body, Controller, Get, Param, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount } from '@app/auth';
import { MethodDocs } from '../method-docs';
import { CallbackQueriesService } from './callback-queries.service';
import { CreateCallbackQueryDto, CreateInlineQueryDto } from './dto/interaction.dto';
import { InlineQueriesService } from './inline-queries.service';
import { CallbackQueryStateView, CreatedQueryView, InlineQueryStateView } from './interaction.view';

const LIMITED = { code: 'RATE_LIMITED', when: 'too many clicks or queries by this account in a minute' } as const;

/** End-user side of buttons and inline mode (account JWT): each call becomes one Update for one bot. */
@ApiTags('client interaction')
@ApiBearerAuth()
@UseGuards(AccountGuard)
@Controller('api/v1/bots/client')
export class ClientInteractionController {
  constructor(
    private readonly callbacks: CallbackQueriesService,
    private readonly inline: InlineQueriesService,
  ) {}

  @Post('callback-queries')
  @MethodDocs(
    'Click an inline keyboard button of a bot message: a callback_query Update for that bot',
    { status: 201, description: 'The callback query id', type: CreatedQueryView },
    { code: 'VALIDATION', when: 'malformed body, or the message has no button with exactly this callback_data' },
    'UNAUTHORIZED',
    { code: 'NOT_FOUND', when: 'not an active member of the chat, no such live message, or its bot is not available' },
    LIMITED,
  )
  click(@CurrentAccount() account: Account, @Body() dto: CreateCallbackQueryDto): Promise<CreatedQueryView> {
    return this.callbacks.click(account, dto);
  }

  @Get('callback-queries/:id')
  @MethodDocs(
    "A callback query I made: pending, answered (with the bot's answer) or expired",
    { status: 200, description: 'The query and its answer', type: CallbackQueryStateView },
    'UNAUTHORIZED',
    { code: 'NOT_FOUND', when: 'no such query, or another user made it' },
  )
  readCallback(@CurrentAccount() account: Account, @Param('id') id: string): Promise<CallbackQueryStateView> {
    return this.callbacks.read(account, id);
  }

  @Post('inline-queries')
  @MethodDocs(
    'Ask a bot inline (the user typed @username and a query): an inline_query Update for that bot',
    { status: 201, description: 'The inline query id', type: CreatedQueryView },
    'VALIDATION',
    { code: 'INLINE_NOT_SUPPORTED', when: 'the bot has supports_inline_queries off' },
    'UNAUTHORIZED',
    { code: 'NOT_FOUND', when: 'no available bot has this username, or chat_id is not a chat of the caller' },
    LIMITED,
  )
  ask(@CurrentAccount() account: Account, @Body() dto: CreateInlineQueryDto): Promise<CreatedQueryView> {
    return this.inline.ask(account, dto);
  }

  @Get('inline-queries/:id')
  @MethodDocs(
    "An inline query I made: pending, answered (with the bot's results) or expired",
    { status: 200, description: 'The query and its results', type: InlineQueryStateView },
    'UNAUTHORIZED',
    { code: 'NOT_FOUND', when: 'no such query, or another user made it' },
  )
  readInline(@CurrentAccount() account: Account, @Param('id') id: string): Promise<InlineQueryStateView> {
    return this.inline.read(account, id);
  }
}
