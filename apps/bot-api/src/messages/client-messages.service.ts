import { Injectable } from '@nestjs/common';
import type { Account } from '@app/auth';
import { Database, pageAnswer, pageWindow } from '@app/platform';
import { ChatsStore, isManager } from '../chats/chats.store';
import { FilesService } from '../files/files.service';
import { FileLinksService } from '../files/file-links.service';
import { StoredFile } from '../files/entities/file.entity';
import { ChatActionsService } from './chat-actions.service';
import {
  CAPTION_MAX,
  EditMessageTextDto,
  TEXT_MAX,
  ListMessagesQuery,
  MESSAGES_PAGE_SIZE,
  PostMessageDto,
} from './dto/client-messages.dto';
import { DeletedMessageView, MessageListView, MessageView, ReceiptView } from './dto/message.view';
import { Message, MessageKind } from './entities/message.entity';
import { MessageEventsService } from './message-events.service';
import { formattedText } from './formatted-text';
import { isMediaKind } from './message-view';
import { MessageReceiptsStore } from './message-receipts.store';
import { textColumns } from './message-text';
import { MessageRenderer } from './message-renderer';
import { MessagesService } from './messages.service';
import { MessagesStore } from './messages.store';
import { BotErrors } from '../bot-errors';

/** The kind a person's upload is shown as, from its MIME type. */
export function kindForMime(mimeType: string): MessageKind {
  if (mimeType.startsWith('image/')) return 'photo';
  if (mimeType.startsWith('video/')) return 'video';
  if (mimeType.startsWith('audio/')) return 'audio';
  return 'document';
}

/** What end users do with messages; every event becomes Updates for the bots that should see it. */
@Injectable()
export class ClientMessagesService {
  constructor(
    private readonly database: Database,
    private readonly store: MessagesStore,
    private readonly messages: MessagesService,
    private readonly receipts: MessageReceiptsStore,
    private readonly renderer: MessageRenderer,
    private readonly events: MessageEventsService,
    private readonly files: FilesService,
    private readonly links: FileLinksService,
    private readonly actions: ChatActionsService,
    private readonly chats: ChatsStore,
  ) {}

  /** Newest first; page 1 is the latest messages. Bot replies are ordinary messages of the chat. */
  async list(account: Account, chatId: string, query: ListMessagesQuery): Promise<MessageListView> {
    const { chat } = await this.chats.requireActiveMember(this.database, chatId, account.id);
    const window = pageWindow(query, MESSAGES_PAGE_SIZE);
    const [messages, total] = await this.store.page(chatId, window.offset, window.pageSize);
    return {
      ...pageAnswer(await this.renderer.render(this.database, chat, messages), total, window),
      chat_actions: await this.actions.list(chat.id),
    };
  }

  async post(account: Account, chatId: string, dto: PostMessageDto): Promise<MessageView> {
    const parts = [dto.file_id, dto.location].filter((part) => part !== undefined).length;
    if (parts > 1) throw BotErrors.invalid('Send either file_id or location, not both');
    if (parts === 0 && dto.text === undefined) throw BotErrors.invalid('text, file_id or location is required');
    if (dto.location && dto.text !== undefined) throw BotErrors.invalid('A location message carries no text');
    // No explicit transaction: reads (the file, then the chat with a drawn message id, from which the
    // Updates' ids derive), then one statement that writes the message, its Updates and outbox rows
    // atomically, and only while the sender is still a member.
    let file: StoredFile | null = null;
    if (dto.file_id) {
      file = await this.files.visibleToUser(this.database, dto.file_id, account.id);
      if (dto.text && dto.text.length > CAPTION_MAX) {
        throw BotErrors.invalid(`A caption has at most ${CAPTION_MAX} characters`);
      }
    }
    const formatted =
      dto.text === undefined
        ? null
        : formattedText(dto.text, { entities: dto.entities }, file ? CAPTION_MAX : TEXT_MAX, file ? 'caption' : 'text');
    if (dto.entities && formatted === null) throw BotErrors.invalid('entities need a text');
    const replyTo = dto.reply_to_message_id ?? null;
    const reserved = await this.messages.reserveAsMember(this.database, chatId, account.id, replyTo);
    const message: Message = {
      id: reserved.id,
      chatId,
      senderId: account.id,
      kind: file ? kindForMime(file.mimeType) : dto.location ? 'location' : 'text',
      ...textColumns(formatted?.text ?? null, formatted?.entities ?? []),
      fileId: file?.id ?? null,
      replyToMessageId: replyTo,
      mentions: dto.mentions ?? [],
      metadata: dto.location
        ? { location: { latitude: dto.location.latitude, longitude: dto.location.longitude } }
        : {},
      replyMarkup: null,
      createdAt: reserved.createdAt,
      editedAt: null,
      deletedAt: null,
    };
    const updateUrl = file ? (await this.links.forUpdate(file)).url : null;
    const replied = await this.renderer.replyView(this.database, reserved.chat, message, 'update');
    const updates = this.events.messagePostedUpdates(reserved, message, file, updateUrl, replied);
    const written = await this.messages.insertReserved(this.database, message, updates);
    this.events.posted(this.database, written);
    return this.renderer.view(message, reserved.chat, reserved.sender, file);
  }

  async edit(account: Account, chatId: string, messageId: string, dto: EditMessageTextDto): Promise<MessageView> {
    return this.database.transaction(async (tx) => {
      const { chat } = await this.chats.requireActiveMember(tx, chatId, account.id);
      const message = await this.messages.findInChat(tx, chat.id, messageId, true);
      if (message.senderId !== account.id) throw BotErrors.error('FORBIDDEN', 'Only the sender edits a message');
      if (message.kind !== 'text' && !isMediaKind(message.kind)) {
        throw BotErrors.invalid(`A ${message.kind} message has no text to edit`);
      }
      if (isMediaKind(message.kind) && dto.text.length > CAPTION_MAX) {
        throw BotErrors.invalid(`A caption has at most ${CAPTION_MAX} characters`);
      }
      const formatted = formattedText(
        dto.text,
        { entities: dto.entities },
        isMediaKind(message.kind) ? CAPTION_MAX : TEXT_MAX,
        isMediaKind(message.kind) ? 'caption' : 'text',
      );
      Object.assign(message, textColumns(formatted.text, formatted.entities));
      message.editedAt = new Date();
      message.metadata = { ...message.metadata, isEdited: true };
      await this.store.save(tx, message);
      await this.events.messageEdited(tx, chat, message);
      return this.renderer.renderOne(tx, chat, message);
    });
  }

  /** The sender may delete; so may the owner or an administrator of a group. */
  async remove(account: Account, chatId: string, messageId: string): Promise<DeletedMessageView> {
    return this.database.transaction(async (tx) => {
      const { chat, member } = await this.chats.requireActiveMember(tx, chatId, account.id);
      const message = await this.messages.findInChat(tx, chat.id, messageId, true);
      const moderator = chat.type === 'group' && isManager(member);
      if (message.senderId !== account.id && !moderator) {
        throw BotErrors.error('FORBIDDEN', 'Only the sender or a group administrator deletes a message');
      }
      const at = await this.messages.markDeleted(tx, chat, message);
      await this.events.messageDeleted(tx, chat, message, at);
      return { message_id: message.id, deleted: true as const };
    });
  }

  async receipt(account: Account, chatId: string, messageId: string, kind: 'read' | 'delivered'): Promise<ReceiptView> {
    return this.database.transaction(async (tx) => {
      const { chat } = await this.chats.requireActiveMember(tx, chatId, account.id);
      const message = await this.messages.findInChat(tx, chat.id, messageId);
      if (message.senderId === account.id) throw BotErrors.invalid('Receipts are for messages of others');
      const at = await this.receipts.add(tx, message.id, account.id, kind);
      // A repeated receipt is acknowledged but announces nothing new.
      if (at) await this.events.receipt(tx, chat, message, kind, at);
      return { message_id: message.id, status: kind };
    });
  }
}
