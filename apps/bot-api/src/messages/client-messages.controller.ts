import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { Account, AccountGuard, CurrentAccount } from '@app/auth';
import { MethodDocs } from '../method-docs';
import { ClientMessagesService } from './client-messages.service';
import { EditMessageTextDto, ListMessagesQuery, PostMessageDto } from './dto/client-messages.dto';
import { DeletedMessageView, MessageListView, MessageView, ReceiptView } from './dto/message.view';

@ApiTags('client messages')
@ApiBearerAuth()
@UseGuards(AccountGuard)
@Controller('api/v1/bots/client/chats/:chatId/messages')
export class ClientMessagesController {
  constructor(private readonly messages: ClientMessagesService) {}

  @Get()
  @MethodDocs(
    'Messages of a chat, newest first, bot replies included',
    {
      status: 200,
      description: '`items`, `total`, `page`, `pageSize` and the current `chat_actions`',
      type: MessageListView,
    },
    'VALIDATION',
    { code: 'NOT_FOUND', when: 'no such chat or message for the caller' },
  )
  list(
    @CurrentAccount() account: Account,
    @Param('chatId') chatId: string,
    @Query() query: ListMessagesQuery,
  ): Promise<MessageListView> {
    return this.messages.list(account, chatId, query);
  }

  @Post()
  @MethodDocs(
    'Post a message: text, file_id or location; emits message Updates',
    { status: 201, description: 'The new message', type: MessageView },
    'VALIDATION',
    { code: 'NOT_FOUND', when: 'no such chat, reply target or file for the caller' },
  )
  post(
    @CurrentAccount() account: Account,
    @Param('chatId') chatId: string,
    @Body() dto: PostMessageDto,
  ): Promise<MessageView> {
    return this.messages.post(account, chatId, dto);
  }

  @Patch(':messageId')
  @MethodDocs(
    'Edit the text of an own message; emits edited_message',
    { status: 200, description: 'The edited message', type: MessageView },
    'VALIDATION',
    { code: 'FORBIDDEN', when: 'not the sender' },
    { code: 'NOT_FOUND', when: 'no such chat or message for the caller' },
  )
  edit(
    @CurrentAccount() account: Account,
    @Param('chatId') chatId: string,
    @Param('messageId') messageId: string,
    @Body() dto: EditMessageTextDto,
  ): Promise<MessageView> {
    return this.messages.edit(account, chatId, messageId, dto);
  }

  @Delete(':messageId')
  @MethodDocs(
    'Delete a message (sender, or group owner or administrator); emits message_deleted',
    { status: 200, description: '`{ message_id, deleted: true }`', type: DeletedMessageView },
    { code: 'FORBIDDEN', when: 'neither sender nor group administrator' },
    { code: 'NOT_FOUND', when: 'no such chat or message for the caller' },
  )
  remove(
    @CurrentAccount() account: Account,
    @Param('chatId') chatId: string,
    @Param('messageId') messageId: string,
  ): Promise<DeletedMessageView> {
    return this.messages.remove(account, chatId, messageId);
  }

  @Post(':messageId/read')
  @MethodDocs(
    'Mark a message read; emits message_read to the bot that sent it',
    { status: 200, description: '`{ message_id, status }`', type: ReceiptView },
    'VALIDATION',
    { code: 'NOT_FOUND', when: 'no such chat or message for the caller' },
  )
  @HttpCode(200)
  read(
    @CurrentAccount() account: Account,
    @Param('chatId') chatId: string,
    @Param('messageId') messageId: string,
  ): Promise<ReceiptView> {
    return this.messages.receipt(account, chatId, messageId, 'read');
  }

  @Post(':messageId/delivered')
  @MethodDocs(
    'Mark a message delivered; emits message_delivered to the bot that sent it',
    { status: 200, description: '`{ message_id, status }`', type: ReceiptView },
    'VALIDATION',
    { code: 'NOT_FOUND', when: 'no such chat or message for the caller' },
  )
  @HttpCode(200)
  delivered(
    @CurrentAccount() account: Account,
    @Param('chatId') chatId: string,
    @Param('messageId') messageId: string,
  ): Promise<ReceiptView> {
    return this.messages.receipt(account, chatId, messageId, 'delivered');
  }
}
