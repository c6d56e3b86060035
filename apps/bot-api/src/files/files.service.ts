import { Injectable } from '@nestjs/common';
import { isUuid } from '@app/platform';
import { EntityManager } from 'typeorm';
import { StoredFile } from './entities/file.entity';
import { BotErrors } from '../bot-errors';

/**
 * file_id look-ups. A file is visible to its owner and to every active member of a chat in which it
 * was posted (so a bot can resend what it received); anything else answers 404 like an unknown id.
 */
@Injectable()
export class FilesService {
  async visibleToUser(
    manager: EntityManager,
    fileId: string,
    userId: string,
    ownerBotId?: string,
  ): Promise<StoredFile> {
    const notFound = BotErrors.notFound('File');
    if (!isUuid(fileId)) throw notFound;
    const file = await manager.getRepository(StoredFile).findOneBy({ id: fileId });
    if (!file) throw notFound;
    if (file.userId === userId || (ownerBotId !== undefined && file.botId === ownerBotId)) return file;
    const shared: unknown[] = await manager.query(
      `SELECT 1 FROM messages m
         JOIN chat_members cm ON cm.chat_id = m.chat_id AND cm.user_id = $2 AND cm.state = 'active'
        WHERE m.file_id = $1 AND m.deleted_at IS NULL
        LIMIT 1`,
      [fileId, userId],
    );
    if (shared.length === 0) throw notFound;
    return file;
  }

  /** Files visible to a bot: its own uploads and files posted in chats it is an active member of. */
  visibleToBot(
    manager: EntityManager,
    fileId: string,
    bot: { id: string; systemUserId: string | null },
  ): Promise<StoredFile> {
    return this.visibleToUser(manager, fileId, bot.systemUserId ?? '', bot.id);
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
}
