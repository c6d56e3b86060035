import { Injectable } from '@nestjs/common';
import type { SqlTarget } from '@app/platform';
import { StoredFile } from './entities/file.entity';
import { BotErrors } from '../bot-errors';
import { FilesStore } from './files.store';
import { groupMessageVisibleTo } from '../bots/privacy';

/** What file visibility needs of a bot. */
export interface FileReadingBot {
  id: string;
  systemUserId: string | null;
  username: string | null;
}

/** Who may use a completed upload. Anything a caller may not see answers 404 like an unknown id. */
@Injectable()
export class FilesService {
  constructor(private readonly store: FilesStore) {}

  /** A person sees their own uploads and every file posted in a chat they are an active member of. */
  async visibleToUser(on: SqlTarget, fileId: string, userId: string): Promise<StoredFile> {
    const file = await this.find(on, fileId);
    if (file.userId === userId) return file;
    if (!(await this.store.postedToMemberOf(on, fileId, userId))) throw BotErrors.notFound('File');
    return file;
  }

  /**
   * A bot sees the files it uploaded, and a person's file once it received a message carrying it: posted
   * while the bot was an active member, in a private chat or through group privacy (the fan-out rule of
   * MessageEventsService). Another bot's upload is never visible, even in a shared chat: a file_id is the
   * uploading bot's own.
   */
  async visibleToBot(on: SqlTarget, fileId: string, bot: FileReadingBot): Promise<StoredFile> {
    const file = await this.find(on, fileId);
    if (file.botId === bot.id) return file;
    if (file.userId === null || bot.systemUserId === null) throw BotErrors.notFound('File');
    const carriers = await this.store.carriersSeenBy(on, fileId, bot.systemUserId, file.userId);
    const privacyBot = { systemUserId: bot.systemUserId, username: bot.username };
    const received = carriers.some(
      (carrier) =>
        carrier.chat_type === 'private' ||
        groupMessageVisibleTo(privacyBot, {
          text: carrier.text,
          mentions: carrier.mentions,
          replyToSenderId: carrier.reply_to_sender_id,
        }),
    );
    if (!received) throw BotErrors.notFound('File');
    return file;
  }

  private async find(on: SqlTarget, fileId: string): Promise<StoredFile> {
    const file = await this.store.byId(on, fileId);
    if (!file) throw BotErrors.notFound('File');
    return file;
  }
}
