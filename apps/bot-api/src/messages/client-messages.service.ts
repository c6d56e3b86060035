import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Account } from '@app/auth';
import { ApiError } from '@app/envelope';
import { DataSource, IsNull } from 'typeorm';
import { isManager, loadPerson, requireActiveMember } from '../chats/chat-queries';
import { FilesService } from '../files/files.service';
import { StoredFile } from '../files/entities/file.entity';
import { UpdatesService } from '../updates/updates.service';
import { ChatActionsService } from './chat-actions.service';
import { CAPTION_MAX, EditMessageTextDto, ListMessagesQuery, PostMessageDto } from './dto/client-messages.dto';
import { Message, MessageKind } from './entities/message.entity';
import { MessageEventsService } from './message-events.service';
import { isMediaKind } from './message-view';
import { MessageStore } from './message-store.service';

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
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly store: MessageStore,
    private readonly events: MessageEventsService,
    private readonly files: FilesService,
    private readonly actions: ChatActionsService,
    private readonly updates: UpdatesService,
  ) {}

  /** Newest first; page 1 is the latest messages. Bot replies are ordinary messages of the chat. */
  async list(account: Account, chatId: string, query: ListMessagesQuery) {
    const manager = this.dataSource.manager;
    const { chat } = await requireActiveMember(manager, chatId, account.id);
    const [messages, total] = await manager.getRepository(Message).findAndCount({
      where: { chatId, deletedAt: IsNull() },
      order: { id: 'DESC' },
      skip: (query.page - 1) * query.pageSize,
      take: query.pageSize,
    });
    return {
      items: await this.store.render(manager, chat, messages),
      total,
      page: query.page,
      pageSize: query.pageSize,
      chat_actions: await this.actions.list(chat.id),
    };
  }

  async post(account: Account, chatId: string, dto: PostMessageDto) {
    const parts = [dto.file_id, dto.location].filter((part) => part !== undefined).length;
    if (parts > 1) throw ApiError.badRequest('Send either file_id or location, not both');
    if (parts === 0 && dto.text === undefined) throw ApiError.badRequest('text, file_id or location is required');
    if (dto.location && dto.text !== undefined) throw ApiError.badRequest('A location message carries no text');
    // No explicit transaction: reads (the file, then the chat with a drawn message id, from which the
    // Updates' ids derive), then one statement that writes the message, its Updates and outbox rows
    // atomically, and only while the sender is still a member.
    let file: StoredFile | null = null;
    if (dto.file_id) {
      file = await this.files.visibleToUser(this.dataSource.manager, dto.file_id, account.id);
      if (dto.text && dto.text.length > CAPTION_MAX) {
        throw ApiError.badRequest(`A caption has at most ${CAPTION_MAX} characters`);
      }
    }
    const replyTo = dto.reply_to_message_id ?? null;
    const reserved = await this.store.reserveAsMember(this.dataSource, chatId, account.id, replyTo);
    const message: Message = {
      id: reserved.id,
      chatId,
      senderId: account.id,
      kind: file ? kindForMime(file.mimeType) : dto.location ? 'location' : 'text',
      text: dto.text ?? null,
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
    const updates = this.updates.columnsOf(this.events.messagePostedEvents(reserved, message, file));
    const written = await this.store.insertReserved(this.dataSource, message, updates);
    this.updates.written(this.dataSource.manager, written);
    return this.store.view(message, reserved.chat, reserved.sender, file);
  }

  async edit(account: Account, chatId: string, messageId: string, dto: EditMessageTextDto) {
    return this.dataSource.transaction(async (manager) => {
      const { chat } = await requireActiveMember(manager, chatId, account.id);
      const message = await this.store.findInChat(manager, chat.id, messageId, true);
      if (message.senderId !== account.id) throw new ApiError(403, 'FORBIDDEN', 'Only the sender edits a message');
      if (message.kind !== 'text' && !isMediaKind(message.kind)) {
        throw ApiError.badRequest(`A ${message.kind} message has no text to edit`);
      }
      if (isMediaKind(message.kind) && dto.text.length > CAPTION_MAX) {
        throw ApiError.badRequest(`A caption has at most ${CAPTION_MAX} characters`);
      }
      message.text = dto.text;
      message.editedAt = new Date();
      message.metadata = { ...message.metadata, isEdited: true };
      await manager.getRepository(Message).save(message);
      const sender = await loadPerson(manager, account.id);
      await this.events.messageEdited(manager, chat, message, sender);
      return this.store.renderOne(manager, chat, message);
    });
  }

  /** The sender may delete; so may the owner or an administrator of a group. */
  async remove(account: Account, chatId: string, messageId: string) {
    return this.dataSource.transaction(async (manager) => {
      const { chat, member } = await requireActiveMember(manager, chatId, account.id);
      const message = await this.store.findInChat(manager, chat.id, messageId, true);
      const moderator = chat.type === 'group' && isManager(member);
      if (message.senderId !== account.id && !moderator) {
        throw new ApiError(403, 'FORBIDDEN', 'Only the sender or a group administrator deletes a message');
      }
      const at = await this.store.markDeleted(manager, chat, message);
      await this.events.messageDeleted(manager, chat, message, at);
      return { message_id: message.id, deleted: true };
    });
  }

  async receipt(account: Account, chatId: string, messageId: string, kind: 'read' | 'delivered') {
    return this.dataSource.transaction(async (manager) => {
      const { chat } = await requireActiveMember(manager, chatId, account.id);
      const message = await this.store.findInChat(manager, chat.id, messageId);
      if (message.senderId === account.id) throw ApiError.badRequest('Receipts are for messages of others');
      const rows: Array<{ created_at: Date }> = await manager.query(
        `INSERT INTO message_receipts (message_id, user_id, kind) VALUES ($1, $2, $3)
         ON CONFLICT DO NOTHING RETURNING created_at`,
        [message.id, account.id, kind],
      );
      // A repeated receipt is acknowledged but announces nothing new.
      if (rows.length > 0) await this.events.receipt(manager, chat, message, kind, rows[0].created_at);
      return { message_id: message.id, status: kind };
    });
  }
}
