import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Database, SqlTarget, Transaction } from '@app/platform';
import { BotErrors } from '../bot-errors';
import type { Bot } from '../bots/entities/bot.entity';
import { ChatsStore } from '../chats/chats.store';
import { Chat } from '../chats/entities/chat.entity';
import { FilesService } from '../files/files.service';
import { StoredFile } from '../files/entities/file.entity';
import { ChatActionsService } from '../messages/chat-actions.service';
import { MessageKind, MessageMetadata } from '../messages/entities/message.entity';
import { MessageRenderer } from '../messages/message-renderer';
import { MessagesService } from '../messages/messages.service';
import { MessagesStore } from '../messages/messages.store';
import { UsersStore } from '../users/users.store';
import { DEFAULT_DICE_EMOJI, rollDice } from './dice';
import type { MessageEntity, ParseMode } from '@app/telegram-shapes';
import { CAPTION_MAX, TEXT_MAX } from '../messages/dto/client-messages.dto';
import { formattedText, nonEmptyText } from '../messages/formatted-text';
import type { IdempotentSend } from './idempotent-send';
import {
  SendBaseDto,
  SendChatActionDto,
  SendContactDto,
  SendDiceDto,
  SendLocationDto,
  SendMediaGroupDto,
  SendMessageDto,
  SendPollDto,
  SendVenueDto,
} from './dto/send.dto';
import { MessageView } from '../messages/dto/message.view';
import { NewMessage } from '../messages/messages.store';

/** A file-based send, already reduced to the message it creates. */
export interface FileSend extends SendBaseDto {
  file_id: string;
  caption?: string;
  width?: number;
  height?: number;
  duration?: number;
  performer?: string;
  title?: string;
}

interface Content {
  kind: MessageKind;
  text?: string | null;
  entities?: MessageEntity[];
  fileId?: string;
  mentions?: string[];
  metadata?: MessageMetadata;
}

/**
 * Bot send operations. A bot writes only into chats where its system user is an active member
 * (others answer 404). Bot messages create no Updates: bots do not receive messages of bots.
 */
@Injectable()
export class SendingService {
  constructor(
    private readonly database: Database,
    private readonly store: MessagesStore,
    private readonly messages: MessagesService,
    private readonly renderer: MessageRenderer,
    private readonly files: FilesService,
    private readonly actions: ChatActionsService,
    private readonly chats: ChatsStore,
    private readonly users: UsersStore,
  ) {}

  /** parse_mode markup is parsed (or given entities checked) before anything is written. */
  sendMessage(bot: Bot, dto: SendMessageDto, key?: IdempotentSend): Promise<MessageView> {
    const { text, entities } = nonEmptyText(formattedText(dto.text, dto, TEXT_MAX));
    return this.sendOne(bot, dto, { kind: 'text', text, entities, mentions: dto.mentions }, key);
  }

  sendFile(bot: Bot, kind: MessageKind, dto: FileSend, key?: IdempotentSend): Promise<MessageView> {
    const own = {
      width: dto.width,
      height: dto.height,
      duration: dto.duration,
      performer: dto.performer,
      title: dto.title,
    };
    const file = Object.fromEntries(Object.entries(own).filter(([, value]) => value !== undefined));
    const caption = captionOf(dto);
    return this.sendOne(
      bot,
      dto,
      { kind, ...caption, fileId: dto.file_id, metadata: Object.keys(file).length > 0 ? { file } : {} },
      key,
    );
  }

  sendLocation(bot: Bot, dto: SendLocationDto, key?: IdempotentSend): Promise<MessageView> {
    const location = { latitude: dto.latitude, longitude: dto.longitude, ...(dto.name ? { name: dto.name } : {}) };
    return this.sendOne(bot, dto, { kind: 'location', metadata: { location } }, key);
  }

  sendVenue(bot: Bot, dto: SendVenueDto, key?: IdempotentSend): Promise<MessageView> {
    const location = {
      latitude: dto.latitude,
      longitude: dto.longitude,
      // Venues written before `name` was accepted carry their title as name; title is kept apart now.
      name: dto.name ?? dto.title,
      title: dto.title,
      ...(dto.address ? { address: dto.address } : {}),
    };
    return this.sendOne(bot, dto, { kind: 'venue', metadata: { location, isVenue: true } }, key);
  }

  sendDice(bot: Bot, dto: SendDiceDto, key?: IdempotentSend): Promise<MessageView> {
    const emoji = dto.emoji ?? DEFAULT_DICE_EMOJI;
    return this.sendOne(bot, dto, { kind: 'dice', metadata: { diceEmoji: emoji, diceValue: rollDice(emoji) } }, key);
  }

  sendPoll(bot: Bot, dto: SendPollDto, key?: IdempotentSend): Promise<MessageView> {
    const type = dto.type ?? 'regular';
    if (type === 'quiz' && dto.correct_option_id === undefined) {
      throw BotErrors.invalid('A quiz needs correct_option_id');
    }
    if (type === 'regular' && dto.correct_option_id !== undefined) {
      throw BotErrors.invalid('correct_option_id is only for quizzes');
    }
    if (dto.correct_option_id !== undefined && dto.correct_option_id >= dto.options.length) {
      throw BotErrors.invalid('correct_option_id must be the index of one of the options');
    }
    const poll = {
      question: dto.question,
      options: dto.options,
      is_anonymous: dto.is_anonymous ?? true,
      type,
      ...(dto.correct_option_id !== undefined ? { correct_option_id: dto.correct_option_id } : {}),
    };
    return this.sendOne(bot, dto, { kind: 'poll', text: dto.question, metadata: { poll } }, key);
  }

  sendContact(bot: Bot, dto: SendContactDto, key?: IdempotentSend): Promise<MessageView> {
    const contact = {
      phone_number: dto.phone_number,
      first_name: dto.first_name,
      ...(dto.last_name ? { last_name: dto.last_name } : {}),
    };
    return this.sendOne(bot, dto, { kind: 'contact', metadata: { contact } }, key);
  }

  /** Separate messages sharing a media_group_id, written together; only the last carries reply_markup. */
  sendMediaGroup(bot: Bot, dto: SendMediaGroupDto, key?: IdempotentSend): Promise<MessageView[]> {
    const mediaGroupId = randomUUID();
    const captions = dto.media.map((item) => captionOf(item));
    return this.database.transaction(async (tx) => {
      await key?.begin(tx);
      const chat = await this.writableChat(tx, bot, dto);
      const views: MessageView[] = [];
      for (const [index, item] of dto.media.entries()) {
        const last = index === dto.media.length - 1;
        const content = { kind: item.type, ...captions[index], fileId: item.file_id, metadata: { mediaGroupId } };
        views.push(await this.write(tx, bot, chat, dto, content, last ? dto.reply_markup : undefined));
      }
      await key?.complete(tx, views);
      return views;
    });
  }

  /** Refuses, as a send would, a chat the bot may not write to: checked before an uploaded file is stored. */
  async assertWritable(bot: Bot, chatId: string): Promise<void> {
    await this.chats.requireActiveMember(this.database, chatId, bot.systemUserId ?? '');
  }

  async sendChatAction(bot: Bot, dto: SendChatActionDto): Promise<true> {
    const { chat } = await this.chats.requireActiveMember(this.database, dto.chat_id, bot.systemUserId ?? '');
    await this.actions.set(chat.id, bot.systemUserId!, dto.action);
    return true;
  }

  /**
   * A send without a file is one statement (membership, reply target and insert together), so it
   * needs no explicit transaction; a file send checks the file's visibility in the same transaction.
   * Under an Idempotency-Key the claim, the send and the stored answer share one transaction.
   */
  private sendOne(bot: Bot, dto: SendBaseDto, content: Content, key?: IdempotentSend): Promise<MessageView> {
    const fileId = content.fileId;
    if (!fileId && !key) return this.writeAsMember(this.database, bot, dto, content, null);
    return this.database.transaction(async (tx) => {
      await key?.begin(tx);
      const file = fileId ? await this.files.visibleToBot(tx, fileId, bot) : null;
      const view = await this.writeAsMember(tx, bot, dto, content, file);
      await key?.complete(tx, view);
      return view;
    });
  }

  private async writeAsMember(
    on: SqlTarget,
    bot: Bot,
    dto: SendBaseDto,
    content: Content,
    file: StoredFile | null,
  ): Promise<MessageView> {
    const { message, chat, sender } = await this.messages.insertAsMember(
      on,
      botMessage(bot, dto.chat_id, dto, content, file, dto.reply_markup),
    );
    return this.renderer.view(message, chat, sender, file, on);
  }

  private async writableChat(tx: Transaction, bot: Bot, dto: SendBaseDto): Promise<Chat> {
    const { chat } = await this.chats.requireActiveMember(tx, dto.chat_id, bot.systemUserId ?? '');
    if (dto.reply_to_message_id !== undefined) await this.messages.findInChat(tx, chat.id, dto.reply_to_message_id);
    return chat;
  }

  private async write(
    tx: Transaction,
    bot: Bot,
    chat: Chat,
    dto: SendBaseDto,
    content: Content,
    replyMarkup: SendBaseDto['reply_markup'],
  ): Promise<MessageView> {
    let file: StoredFile | null = null;
    if (content.fileId) file = await this.files.visibleToBot(tx, content.fileId, bot);
    const message = await this.store.insert(tx, botMessage(bot, chat.id, dto, content, file, replyMarkup));
    return this.renderer.view(message, chat, await this.users.person(tx, bot.systemUserId!), file, tx);
  }
}

/** A media send's caption and its formatting; an empty caption is none. */
function captionOf(dto: {
  caption?: string;
  parse_mode?: ParseMode;
  caption_entities?: unknown[];
}): Pick<Content, 'text' | 'entities'> {
  if (dto.caption === undefined) {
    if (dto.caption_entities) throw BotErrors.invalid('caption_entities need a caption');
    return {};
  }
  const { text, entities } = formattedText(
    dto.caption,
    { parse_mode: dto.parse_mode, entities: dto.caption_entities },
    CAPTION_MAX,
    'caption',
  );
  return text === '' ? {} : { text, entities };
}

/** What a bot's send writes: the content, its file and reply target, and the markup it carries. */
function botMessage(
  bot: Bot,
  chatId: string,
  dto: SendBaseDto,
  content: Content,
  file: StoredFile | null,
  replyMarkup: SendBaseDto['reply_markup'],
): NewMessage {
  return {
    chatId,
    senderId: bot.systemUserId ?? '',
    kind: content.kind,
    text: content.text,
    entities: content.entities,
    fileId: file?.id,
    replyToMessageId: dto.reply_to_message_id,
    mentions: content.mentions,
    metadata: content.metadata,
    replyMarkup: replyMarkup ? { ...replyMarkup } : null,
  };
}
