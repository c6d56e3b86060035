import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount } from '@app/auth';
import { ClientMessagesService } from './client-messages.service';
import { EditMessageTextDto, ListMessagesQuery, PostMessageDto } from './dto/client-messages.dto';

@ApiTags('client messages')
@ApiBearerAuth()
@UseGuards(AccountGuard)
@Controller('api/v1/bots/client/chats/:chatId/messages')
export class ClientMessagesController {
  constructor(private readonly messages: ClientMessagesService) {}

  @Get()
  list(@CurrentAccount() account: Account, @Param('chatId') chatId: string, @Query() query: ListMessagesQuery) {
    return this.messages.list(account, chatId, query);
  }

  @Post()
  post(@CurrentAccount() account: Account, @Param('chatId') chatId: string, @Body() dto: PostMessageDto) {
    return this.messages.post(account, chatId, dto);
  }

  @Patch(':messageId')
  edit(
    @CurrentAccount() account: Account,
    @Param('chatId') chatId: string,
    @Param('messageId') messageId: string,
    @Body() dto: EditMessageTextDto,
  ) {
    return this.messages.edit(account, chatId, messageId, dto);
  }

  @Delete(':messageId')
  remove(@CurrentAccount() account: Account, @Param('chatId') chatId: string, @Param('messageId') messageId: string) {
    return this.messages.remove(account, chatId, messageId);
  }

  @Post(':messageId/read')
  @HttpCode(200)
  read(@CurrentAccount() account: Account, @Param('chatId') chatId: string, @Param('messageId') messageId: string) {
    return this.messages.receipt(account, chatId, messageId, 'read');
  }

  @Post(':messageId/delivered')
  @HttpCode(200)
  delivered(
    @CurrentAccount() account: Account,
    @Param('chatId') chatId: string,
    @Param('messageId') messageId: string,
  ) {
    return this.messages.receipt(account, chatId, messageId, 'delivered');
  }
}
