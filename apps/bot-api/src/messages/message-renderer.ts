import { Injectable } from '@nestjs/common';
import { Database, SqlTarget } from '@app/platform';
import type { ChatRef } from '../chats/chat-view';
import type { StoredFile } from '../files/entities/file.entity';
import { FileLinksService } from '../files/file-links.service';
import { FilesStore } from '../files/files.store';
import type { Person } from '../users/person';
import { UsersStore } from '../users/users.store';
import type { MessageView } from './dto/message.view';
import type { Message } from './entities/message.entity';
import { messageView } from './message-view';
import { MessagesStore } from './messages.store';

/**
 * Messages as readers see them: each with its sender, its file under a signed download URL and the
 * message it replies to. Reads through the stores; shared by the client routes and the bot operations.
 */
@Injectable()
export class MessageRenderer {
  constructor(
    private readonly database: Database,
    private readonly messages: MessagesStore,
    private readonly files: FilesStore,
    private readonly links: FileLinksService,
    private readonly users: UsersStore,
  ) {}

  /** Messages as readers see them, each with the message it replies to (one level, live ones only). */
  async render(on: SqlTarget, chat: ChatRef, messages: Message[]): Promise<MessageView[]> {
    const targets = await this.replyTargets(on, chat.id, messages);
    const all = [...messages, ...targets];
    const people = await this.users.people(
      on,
      all.map((m) => m.senderId),
    );
    const files = await this.files.byIds(
      on,
      all.map((m) => m.fileId),
    );
    const urls = await this.links.forReadAll(files.values());
    const viewOf = (m: Message, replyTo: MessageView | null) => {
      const file = m.fileId ? files.get(m.fileId)! : null;
      return messageView(m, chat, people.get(m.senderId)!, file, file ? urls.get(file.id)! : null, replyTo);
    };
    const replies = new Map(targets.map((target) => [target.id, viewOf(target, null)]));
    return messages.map((m) =>
      viewOf(m, m.replyToMessageId === null ? null : (replies.get(m.replyToMessageId) ?? null)),
    );
  }

  async renderOne(on: SqlTarget, chat: ChatRef, message: Message): Promise<MessageView> {
    return (await this.render(on, chat, [message]))[0];
  }

  /**
   * The view a caller reads now: a file's URL is signed for FILE_DOWNLOAD_URL_TTL_SECONDS. A reply
   * carries the message it replies to, read on `on` (the caller's transaction, when it has one).
   */
  async view(
    message: Message,
    chat: ChatRef,
    sender: Person,
    file: StoredFile | null,
    on: SqlTarget = this.database,
  ): Promise<MessageView> {
    const replyTo = await this.replyView(on, chat, message, 'read');
    return messageView(message, chat, sender, file, file ? (await this.links.forRead(file)).url : null, replyTo);
  }

  /**
   * The view of the message that `message` replies to, or null (no reply, or the target was deleted).
   * `link` says how long its file's URL must live: a read now, or an Update's delivery.
   */
  async replyView(
    on: SqlTarget,
    chat: ChatRef,
    message: Message,
    link: 'read' | 'update',
  ): Promise<MessageView | null> {
    const [target] = await this.replyTargets(on, chat.id, [message]);
    if (!target) return null;
    const sender = await this.users.person(on, target.senderId);
    const file = target.fileId ? ((await this.files.byIds(on, [target.fileId])).get(target.fileId) ?? null) : null;
    const url = file ? (link === 'read' ? await this.links.forRead(file) : await this.links.forUpdate(file)).url : null;
    return messageView(target, chat, sender, file, url);
  }

  private async replyTargets(on: SqlTarget, chatId: string, messages: Message[]): Promise<Message[]> {
    const ids = [...new Set(messages.map((m) => m.replyToMessageId).filter((id): id is number => id !== null))];
    if (ids.length === 0) return [];
    return this.messages.liveInChat(on, chatId, ids);
  }
}
