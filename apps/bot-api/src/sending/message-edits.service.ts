import { Injectable } from '@nestjs/common';
import { Database, isUuid, Transaction } from '@app/platform';
import { BotErrors } from '../bot-errors';
import type { Bot } from '../bots/entities/bot.entity';
import { ChatsStore, Membership } from '../chats/chats.store';
import type { Chat } from '../chats/entities/chat.entity';
import type { ChatMember } from '../chats/entities/chat-member.entity';
import type { Message } from '../messages/entities/message.entity';
import { MessageEventsService } from '../messages/message-events.service';
import { unixSeconds } from '../unix-time';
import { isMediaKind } from '../messages/message-view';
import type { FormattedText, ParseMode } from '@app/telegram-shapes';
import { FilesService } from '../files/files.service';
import { CAPTION_MAX, TEXT_MAX } from '../messages/dto/client-messages.dto';
import { formattedText, nonEmptyText } from '../messages/formatted-text';
import { MessageRenderer } from '../messages/message-renderer';
import { textColumns } from '../messages/message-text';
import { MessagesService } from '../messages/messages.service';
import { MessagesStore } from '../messages/messages.store';
import { groupMessageVisibleTo } from '../bots/privacy';
import { UsersStore } from '../users/users.store';
import {
  CopyMessageDto,
  DeleteMessageDto,
  DeleteMessagesDto,
  EditMessageCaptionDto,
  EditMessageDto,
  EditMessageMediaDto,
  EditMessageReplyMarkupDto,
  ForwardMessageDto,
  MessageRefDto,
  StopPollDto,
} from './dto/edit.dto';
import { MessageView } from '../messages/dto/message.view';
import type { IdempotentSend } from './idempotent-send';
import type { ReplyMarkup } from '../messages/dto/reply-markup';

interface OwnMessage extends Membership {
  message: Message;
}

/** Changes a bot makes to existing messages: its own edits and deletions, forwards and copies. */
@Injectable()
export class MessageEditsService {
  constructor(
    private readonly database: Database,
    private readonly store: MessagesStore,
    private readonly messages: MessagesService,
    private readonly renderer: MessageRenderer,
    private readonly events: MessageEventsService,
    private readonly chats: ChatsStore,
    private readonly users: UsersStore,
    private readonly files: FilesService,
  ) {}

  /** Text messages of this bot only; marks metadata.isEdited and emits edited_message. */
  editMessage(bot: Bot, dto: EditMessageDto, key?: IdempotentSend): Promise<MessageView> {
    const formatted = nonEmptyText(formattedText(dto.text, dto, TEXT_MAX));
    return this.edit(bot, dto, key, async (message) => {
      if (message.kind !== 'text') throw BotErrors.invalid('Only text messages can be edited');
      setText(message, formatted);
    });
  }

  /** The caption of a media message of this bot; an omitted or empty caption removes it. */
  editMessageCaption(bot: Bot, dto: EditMessageCaptionDto, key?: IdempotentSend): Promise<MessageView> {
    const caption = captionOf(dto.caption, dto.parse_mode, dto.caption_entities);
    return this.edit(bot, dto, key, async (message) => {
      if (!isMediaKind(message.kind)) throw BotErrors.invalid('Only media messages have a caption to edit');
      setText(message, caption);
    });
  }

  /**
   * Another file (of a type a media message may have) for a media message of this bot, with the new
   * media's caption: none when it gives none, as in Telegram. The file must be one the bot may send.
   */
  editMessageMedia(bot: Bot, dto: EditMessageMediaDto, key?: IdempotentSend): Promise<MessageView> {
    const caption = captionOf(dto.media.caption, dto.media.parse_mode, dto.media.caption_entities);
    return this.edit(bot, dto, key, async (message, tx) => {
      if (!isMediaKind(message.kind) || message.metadata.mediaGroupId) {
        throw BotErrors.invalid('Only media messages outside an album can get another file');
      }
      const file = await this.files.visibleToBot(tx, dto.media.file_id, bot);
      message.kind = dto.media.type;
      message.fileId = file.id;
      const { file: _given, ...metadata } = message.metadata;
      message.metadata = metadata;
      setText(message, caption);
    });
  }

  /**
   * Closes a poll of this bot: it shows as closed (is_closed) to every reader. Not an edit: no
   * edited_message, as Telegram sends none.
   */
  stopPoll(bot: Bot, dto: StopPollDto): Promise<MessageView> {
    return this.database.transaction(async (tx) => {
      const { chat, message } = await this.ownMessage(tx, bot, dto);
      const poll = message.metadata.poll;
      if (!poll) throw BotErrors.invalid('The message is not a poll');
      if (poll.is_closed) throw BotErrors.invalid('The poll has already been closed');
      message.metadata = { ...message.metadata, poll: { ...poll, is_closed: true } };
      message.replyMarkup = editedReplyMarkup(message.replyMarkup, dto.reply_markup);
      await this.store.save(tx, message);
      return this.renderer.renderOne(tx, chat, message);
    });
  }

  /**
   * Several messages of this bot in one chat, in one transaction: unknown and already deleted ones are
   * skipped, as in Telegram; one that another member sent refuses the whole call, and nothing is deleted.
   */
  deleteMessages(bot: Bot, dto: DeleteMessagesDto): Promise<true> {
    return this.database.transaction(async (tx) => {
      const { chat } = await this.chats.requireActiveMember(tx, dto.chat_id, bot.systemUserId ?? '');
      // Ascending ids: concurrent calls lock rows in one order and cannot deadlock.
      for (const id of [...new Set(dto.message_ids)].sort((a, b) => a - b)) {
        const message = await this.store.findLive(tx, chat.id, id, true);
        if (!message) continue;
        if (message.senderId !== bot.systemUserId)
          throw BotErrors.error('FORBIDDEN', 'Only messages of this bot can be deleted');
        const at = await this.messages.markDeleted(tx, chat, message);
        await this.events.messageDeleted(tx, chat, message, at);
      }
      return true as const;
    });
  }

  private edit(
    bot: Bot,
    dto: MessageRefDto & { reply_markup?: ReplyMarkup | null },
    key: IdempotentSend | undefined,
    change: (message: Message, tx: Transaction) => Promise<void>,
  ): Promise<MessageView> {
    return this.database.transaction(async (tx) => {
      await key?.begin(tx);
      const { chat, message } = await this.ownMessage(tx, bot, dto);
      await change(message, tx);
      message.editedAt = new Date();
      message.metadata = { ...message.metadata, isEdited: true };
      message.replyMarkup = editedReplyMarkup(message.replyMarkup, dto.reply_markup);
      await this.store.save(tx, message);
      await this.events.messageEdited(tx, chat, message);
      return this.completed(tx, key, await this.renderer.renderOne(tx, chat, message));
    });
  }

  deleteMessage(bot: Bot, dto: DeleteMessageDto): Promise<true> {
    return this.database.transaction(async (tx) => {
      const { chat, message } = await this.ownMessage(tx, bot, dto);
      const at = await this.messages.markDeleted(tx, chat, message);
      await this.events.messageDeleted(tx, chat, message, at);
      return true as const;
    });
  }

  /** Replaces the buttons only; null or omitted clears them. Text and media stay as they are. */
  editMessageReplyMarkup(bot: Bot, dto: EditMessageReplyMarkupDto, key?: IdempotentSend): Promise<MessageView> {
    return this.database.transaction(async (tx) => {
      await key?.begin(tx);
      const { chat, message } = await this.ownMessage(tx, bot, dto);
      message.replyMarkup = dto.reply_markup ? { ...dto.reply_markup } : null;
      await this.store.save(tx, message);
      return this.completed(tx, key, await this.renderer.renderOne(tx, chat, message));
    });
  }

  forwardMessage(bot: Bot, dto: ForwardMessageDto, key?: IdempotentSend): Promise<MessageView> {
    return this.duplicate(bot, dto, true, key);
  }

  copyMessage(bot: Bot, dto: CopyMessageDto, key?: IdempotentSend): Promise<MessageView> {
    return this.duplicate(bot, dto, false, key);
  }

  /**
   * The bot must be an active member of both chats and may duplicate only a message it could read
   * (see `readableBy`); a forward keeps the original author and date.
   */
  private duplicate(
    bot: Bot,
    dto: ForwardMessageDto,
    markForwarded: boolean,
    key: IdempotentSend | undefined,
  ): Promise<MessageView> {
    return this.database.transaction(async (tx) => {
      await key?.begin(tx);
      const userId = bot.systemUserId ?? '';
      const source = await this.chats.requireActiveMember(tx, dto.from_chat_id, userId);
      const original = await this.messages.findInChat(tx, source.chat.id, dto.message_id);
      if (!(await this.readableBy(tx, bot, source, original))) {
        throw BotErrors.notFound('Message');
      }
      const target = await this.chats.requireActiveMember(tx, dto.chat_id, userId);
      const { isEdited: _edited, mediaGroupId: _group, forwardFrom, ...kept } = original.metadata;
      const mark = forwardFrom ?? {
        chat_id: original.chatId,
        message_id: original.id,
        from_user_id: original.senderId,
        date: unixSeconds(original.createdAt),
      };
      const message = await this.store.insert(tx, {
        chatId: target.chat.id,
        senderId: userId,
        kind: original.kind,
        text: original.text,
        entities: original.entities,
        fileId: original.fileId,
        metadata: markForwarded ? { ...kept, forwardFrom: mark } : kept,
      });
      return this.completed(tx, key, await this.renderer.renderOne(tx, target.chat, message));
    });
  }

  /** Under an Idempotency-Key the answer is stored with the key, in the same transaction. */
  private async completed(tx: Transaction, key: IdempotentSend | undefined, view: MessageView) {
    await key?.complete(tx, view);
    return view;
  }

  /**
   * Whether the bot sent the message or was sent it as an Update: message ids are one sequence, so
   * without this a bot in privacy mode could copy every message of its groups. The fan-out rule is
   * applied again (MessageEventsService): a person's message posted while the bot was a member, in a
   * private chat, or in a group where privacy let it through. Unknown and unreadable answer alike.
   */
  private async readableBy(tx: Transaction, bot: Bot, source: Membership, message: Message): Promise<boolean> {
    if (message.senderId === bot.systemUserId) return true;
    if (!postedWhileMember(message, source.member)) return false;
    if (await this.users.isBot(tx, message.senderId)) return false;
    if (isPrivate(source.chat)) return true;
    const replyToSenderId = await this.store.senderOf(tx, message.replyToMessageId);
    return groupMessageVisibleTo(
      { systemUserId: bot.systemUserId ?? '', username: bot.username },
      { text: message.text, mentions: message.mentions, replyToSenderId },
    );
  }

  /**
   * The message, locked, in a chat where the bot is an active member (else 404); a message of
   * someone else answers 403.
   */
  private async ownMessage(tx: Transaction, bot: Bot, ref: MessageRefDto): Promise<OwnMessage> {
    const notFound = BotErrors.notFound('Message');
    if (ref.chat_id !== undefined && !isUuid(ref.chat_id)) throw notFound;
    const found = await this.store.findById(tx, ref.message_id);
    if (!found || found.deletedAt || (ref.chat_id !== undefined && found.chatId !== ref.chat_id)) throw notFound;
    const membership = await this.chats.requireActiveMember(tx, found.chatId, bot.systemUserId ?? '');
    const message = await this.messages.findInChat(tx, found.chatId, found.id, true);
    if (message.senderId !== bot.systemUserId) {
      throw BotErrors.error('FORBIDDEN', 'A bot can change only messages it sent');
    }
    return { ...membership, message };
  }
}

/** A caption as an edit gives it: parsed or checked, none when empty. */
function captionOf(
  caption: string | undefined,
  parseMode: ParseMode | undefined,
  entities: unknown[] | undefined,
): FormattedText {
  if (caption === undefined && entities) throw BotErrors.invalid('caption_entities need a caption');
  return formattedText(caption ?? '', { parse_mode: parseMode, entities }, CAPTION_MAX, 'caption');
}

function setText(message: Message, formatted: FormattedText): void {
  Object.assign(message, textColumns(formatted.text === '' ? null : formatted.text, formatted.entities));
}

function postedWhileMember(message: Message, member: ChatMember): boolean {
  return message.createdAt.getTime() >= member.joinedAt.getTime();
}

function isPrivate(chat: Chat): boolean {
  return chat.type === 'private';
}

/** The buttons after an edit: omitted keeps them, null removes them, a keyboard replaces them. */
function editedReplyMarkup(current: ReplyMarkup | null, given: ReplyMarkup | null | undefined): ReplyMarkup | null {
  if (given === undefined) return current;
  return given === null ? null : { ...given };
}
