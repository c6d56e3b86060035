import { Injectable } from '@nestjs/common';
import { isUuid } from '@app/platform';
import { EntityManager } from 'typeorm';
import { StoredFile } from './entities/file.entity';
import { BotErrors } from '../bot-errors';
import { MediaFacts } from './media-probe';
import { FileOwner } from './storage/storage-keys';
import { UploadDeclaration } from './file-uploads.store';
import { groupMessageVisibleTo } from '../bots/privacy';

/** What file visibility needs of a bot. */
export interface FileReadingBot {
  id: string;
  systemUserId: string | null;
  username: string | null;
}

/** A message of the file's owner in a chat the bot belongs to, with what group privacy looks at. */
interface ReceivedCarrier {
  chat_type: string;
  text: string | null;
  mentions: string[];
  reply_to_sender_id: string | null;
}

/**
 * The `files` table: completed uploads and who may use them. Anything a caller may not see answers
 * 404 like an unknown id.
 */
@Injectable()
export class FilesService {
  /** A person sees their own uploads and every file posted in a chat they are an active member of. */
  async visibleToUser(manager: EntityManager, fileId: string, userId: string): Promise<StoredFile> {
    const file = await this.find(manager, fileId);
    if (file.userId === userId) return file;
    const shared: unknown[] = await manager.query(
      `SELECT 1 FROM messages m
         JOIN chat_members cm ON cm.chat_id = m.chat_id AND cm.user_id = $2 AND cm.state = 'active'
        WHERE m.file_id = $1 AND m.deleted_at IS NULL
        LIMIT 1`,
      [fileId, userId],
    );
    if (shared.length === 0) throw BotErrors.notFound('File');
    return file;
  }

  /**
   * A bot sees the files it uploaded, and a person's file once it received a message carrying it: posted
   * while the bot was an active member, in a private chat or through group privacy (the fan-out rule of
   * MessageEventsService). Another bot's upload is never visible, even in a shared chat: a file_id is the
   * uploading bot's own.
   */
  async visibleToBot(manager: EntityManager, fileId: string, bot: FileReadingBot): Promise<StoredFile> {
    const file = await this.find(manager, fileId);
    if (file.botId === bot.id) return file;
    if (file.userId === null || bot.systemUserId === null) throw BotErrors.notFound('File');
    const carriers: ReceivedCarrier[] = await manager.query(
      `SELECT c.type AS chat_type, m.text, m.mentions, r.sender_id AS reply_to_sender_id
         FROM messages m
         JOIN chats c ON c.id = m.chat_id
         JOIN chat_members cm ON cm.chat_id = m.chat_id AND cm.user_id = $2 AND cm.state = 'active'
                              AND cm.joined_at <= m.created_at
         LEFT JOIN messages r ON r.id = m.reply_to_message_id
        WHERE m.file_id = $1 AND m.sender_id = $3 AND m.deleted_at IS NULL`,
      [fileId, bot.systemUserId, file.userId],
    );
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

  async byIds(manager: EntityManager, ids: ReadonlyArray<string | null>): Promise<Map<string, StoredFile>> {
    const unique = [...new Set(ids.filter((id): id is string => id !== null))];
    if (unique.length === 0) return new Map();
    const files = await manager
      .getRepository(StoredFile)
      .createQueryBuilder('f')
      .where('f.id IN (:...unique)', { unique })
      .getMany();
    return new Map(files.map((f) => [f.id, f]));
  }

  /** Whether a file was already made from this storage key (a key completes once). */
  async existsForKey(manager: EntityManager, storageKey: string): Promise<boolean> {
    return manager.getRepository(StoredFile).existsBy({ storageKey });
  }

  /** The file a completed upload becomes. */
  create(
    manager: EntityManager,
    owner: FileOwner,
    storageKey: string,
    declared: UploadDeclaration,
    facts: MediaFacts,
  ): Promise<StoredFile> {
    return manager.getRepository(StoredFile).save(
      manager.create(StoredFile, {
        botId: owner.kind === 'bot' ? owner.botId : null,
        userId: owner.kind === 'user' ? owner.userId : null,
        fileName: declared.fileName,
        mimeType: declared.mimeType,
        fileSize: declared.fileSize,
        width: facts.width,
        height: facts.height,
        duration: facts.duration,
        storageKey,
      }),
    );
  }

  private async find(manager: EntityManager, fileId: string): Promise<StoredFile> {
    const file = isUuid(fileId) ? await manager.getRepository(StoredFile).findOneBy({ id: fileId }) : null;
    if (!file) throw BotErrors.notFound('File');
    return file;
  }

  /**
   * Serialises a bot's storage reservations (upload credentials, multipart files) until the
   * transaction ends, so two parallel uploads cannot both fit under the quota that has room for one.
   */
  async lockBotStorage(manager: EntityManager, botId: string): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext('bot-storage:' || $1))`, [botId]);
  }

  /** Bytes of the bot's completed files. */
  async bytesOfBot(manager: EntityManager, botId: string): Promise<number> {
    const [row]: Array<{ bytes: string }> = await manager.query(
      `SELECT coalesce(sum(file_size), 0) AS bytes FROM files WHERE bot_id = $1`,
      [botId],
    );
    return Number(row.bytes);
  }

  /**
   * Files older than `hours` that no message references and no other service keeps, locked for removal
   * (rows another instance holds are skipped).
   */
  async lockUnreferenced(manager: EntityManager, hours: number, limit: number): Promise<StoredFile[]> {
    const rows: Array<{ id: string; storage_key: string }> = await manager.query(
      `SELECT f.id, f.storage_key FROM files f
        WHERE f.created_at < now() - make_interval(hours => $1) AND f.kept_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.file_id = f.id)
        ORDER BY f.created_at LIMIT $2 FOR UPDATE OF f SKIP LOCKED`,
      [hours, limit],
    );
    return rows.map((row) => Object.assign(new StoredFile(), { id: row.id, storageKey: row.storage_key }));
  }

  async deleteByIds(manager: EntityManager, ids: string[]): Promise<void> {
    if (ids.length > 0) await manager.query(`DELETE FROM files WHERE id = ANY($1::uuid[])`, [ids]);
  }
}
