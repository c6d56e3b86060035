import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiError } from '@app/envelope';
import { DataSource, EntityManager } from 'typeorm';
import type { Bot } from '../bots/entities/bot.entity';
import { isUuid, loadPerson, Membership, requireActiveMember } from '../chats/chat-queries';
import { Message } from '../messages/entities/message.entity';
import { MessageEventsService } from '../messages/message-events.service';
import { unixSeconds } from '../messages/message-view';
import { MessageStore, parseMessageId } from '../messages/message-store.service';
import {
  CopyMessageDto,
  DeleteMessageDto,
  EditMessageDto,
  EditMessageReplyMarkupDto,
  ForwardMessageDto,
  MessageRefDto,
} from './dto/edit.dto';

interface OwnMessage extends Membership {
  message: Message;
}

/** Changes a bot makes to existing messages: its own edits and deletions, forwards and copies. */
@Injectable()
export class MessageEditsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly store: MessageStore,
    private readonly events: MessageEventsService,
  ) {}

  /** Text messages of this bot only; marks metadata.isEdited and emits edited_message. */
  editMessage(bot: Bot, dto: EditMessageDto) {
    return this.dataSource.transaction(async (manager) => {
      const { chat, message } = await this.ownMessage(manager, bot, dto);
      if (message.kind !== 'text') throw ApiError.badRequest('Only text messages can be edited');
      message.text = dto.text;
      message.editedAt = new Date();
      message.metadata = { ...message.metadata, isEdited: true };
      if (dto.reply_markup !== undefined) message.replyMarkup = { ...dto.reply_markup };
      await manager.getRepository(Message).save(message);
      await this.events.messageEdited(manager, chat, message, await loadPerson(manager, message.senderId));
      return this.store.renderOne(manager, chat, message);
    });
  }

  deleteMessage(bot: Bot, dto: DeleteMessageDto) {
    return this.dataSource.transaction(async (manager) => {
      const { chat, message } = await this.ownMessage(manager, bot, dto);
      const at = await this.store.markDeleted(manager, chat, message);
      await this.events.messageDeleted(manager, chat, message, at);
      return true;
    });
  }

  /** Replaces the buttons only; null or omitted clears them. Text and media stay as they are. */
  editMessageReplyMarkup(bot: Bot, dto: EditMessageReplyMarkupDto) {
    return this.dataSource.transaction(async (manager) => {
      const { chat, message } = await this.ownMessage(manager, bot, dto);
      message.replyMarkup = dto.reply_markup ? { ...dto.reply_markup } : null;
      await manager.getRepository(Message).save(message);
      return this.store.renderOne(manager, chat, message);
    });
  }

  forwardMessage(bot: Bot, dto: ForwardMessageDto) {
    return this.duplicate(bot, dto, true);
  }

  copyMessage(bot: Bot, dto: CopyMessageDto) {
    return this.duplicate(bot, dto, false);
  }

  /** The bot must be an active member of both chats; a forward keeps the original author and date. */
  private duplicate(bot: Bot, dto: ForwardMessageDto, markForwarded: boolean) {
    return this.dataSource.transaction(async (manager) => {
      const userId = bot.systemUserId ?? '';
      const source = await requireActiveMember(manager, dto.from_chat_id, userId);
      const original = await this.store.findInChat(manager, source.chat.id, dto.message_id);
      const target = await requireActiveMember(manager, dto.chat_id, userId);
      const { isEdited: _edited, mediaGroupId: _group, forwardFrom, ...kept } = original.metadata;
      const mark = forwardFrom ?? {
        chat_id: original.chatId,
        message_id: original.id,
        from_user_id: original.senderId,
        date: unixSeconds(original.createdAt),
      };
      const message = await this.store.insert(manager, {
        chatId: target.chat.id,
        senderId: userId,
        kind: original.kind,
        text: original.text,
        fileId: original.fileId,
        metadata: markForwarded ? { ...kept, forwardFrom: mark } : kept,
      });
      return this.store.renderOne(manager, target.chat, message);
    });
  }

  /**
   * The message, locked, in a chat where the bot is an active member (else 404); a message of
   * someone else answers 403.
   */
  private async ownMessage(manager: EntityManager, bot: Bot, ref: MessageRefDto): Promise<OwnMessage> {
    const notFound = new ApiError(404, undefined, 'Message not found');
    if (ref.chat_id !== undefined && !isUuid(ref.chat_id)) throw notFound;
    const id = parseMessageId(ref.message_id);
    const found = id === null ? null : await manager.getRepository(Message).findOneBy({ id });
    if (!found || found.deletedAt || (ref.chat_id !== undefined && found.chatId !== ref.chat_id)) throw notFound;
    const membership = await requireActiveMember(manager, found.chatId, bot.systemUserId ?? '');
    const message = await this.store.findInChat(manager, found.chatId, found.id, true);
    if (message.senderId !== bot.systemUserId) {
      throw new ApiError(403, 'FORBIDDEN', 'A bot can change only messages it sent');
    }
    return { ...membership, message };
  }
}
