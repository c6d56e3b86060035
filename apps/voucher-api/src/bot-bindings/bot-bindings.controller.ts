import { Controller, Delete, HttpCode, Param, Put, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount } from '@app/auth';
import { ApiErrors } from '../voucher-errors';
import { ResourceIdPipe } from '../resource-id.pipe';
import { BotBindingsService } from './bot-bindings.service';
import { BotBindingView } from './dto/bot-binding.view';
import { BotIdPipe } from './dto/bot-id.pipe';

@ApiTags('console')
@ApiBearerAuth()
@UseGuards(AccountGuard)
@ApiErrors('NOT_FOUND')
@Controller('api/v1/open-platform/applications/:id/bots/:botId')
export class BotBindingsController {
  constructor(private readonly bindings: BotBindingsService) {}

  @Put()
  @HttpCode(200)
  @ApiOperation({ summary: 'Record that a bot belongs to the application (idempotent)' })
  @ApiOkResponse({ description: 'The binding, as first recorded', type: BotBindingView })
  bind(
    @CurrentAccount() account: Account,
    @Param('id', new ResourceIdPipe('Application')) id: string,
    @Param('botId', BotIdPipe) botId: string,
  ): Promise<BotBindingView> {
    return this.bindings.bind(account.id, id, botId);
  }

  @Delete()
  @HttpCode(200)
  @ApiOperation({ summary: 'Remove the binding of a bot' })
  @ApiOkResponse({ description: 'The binding that was removed', type: BotBindingView })
  unbind(
    @CurrentAccount() account: Account,
    @Param('id', new ResourceIdPipe('Application')) id: string,
    @Param('botId', BotIdPipe) botId: string,
  ): Promise<BotBindingView> {
    return this.bindings.unbind(account.id, id, botId);
  }
}
