import { Injectable } from '@nestjs/common';
import { isUuid, namedStatement, runNamed } from '@app/platform';
import { DataSource, EntityManager } from 'typeorm';
import { StoredFile } from './entities/file.entity';
import { MediaFacts } from './media-probe';
import { FileOwner } from './storage/storage-keys';
import { UploadDeclaration } from './file-uploads.store';

/** A message of the file's owner in a chat the bot belongs to, with what group privacy looks at. */
export interface ReceivedCarrier {
  chat_type: string;
  text: string | null;
  mentions: string[];
  reply_to_sender_id: string | null;
}

export interface OwnedImage {
  id: string;
  mime_type: string;
  width: number | null;
  height: number | null;
}

/**
 * An image file owned by an account: uploaded by the account as a user, or by one of the bots the
 * account develops. One statement, so every rule (exists, is an image, is owned) is decided together
 * and a miss cannot tell which of them failed. A file another service checked this way is marked kept:
 * no message of bot-api references it, and the purge of unreferenced files must leave it.
 */
export const OWNED_IMAGE = namedStatement(
  'files_owned_image',
  `UPDATE files f SET kept_at = coalesce(f.kept_at, now())
    WHERE f.id = $1
      AND f.mime_type LIKE 'image/%'
      AND (f.user_id = $2 OR f.bot_id IN (SELECT b.id FROM bots b WHERE b.owner_id = $2))
    RETURNING f.id, f.mime_type, f.width, f.height`,
);

/** The `files` table: completed uploads, every statement on them. */
@Injectable()
export class FilesStore {
  constructor(private readonly dataSource: DataSource) {}

  /** The file with this id; null for an unknown or malformed id (file ids are UUIDs). */
  async byId(manager: EntityManager, fileId: string): Promise<StoredFile | null> {
    return isUuid(fileId) ? manager.getRepository(StoredFile).findOneBy({ id: fileId }) : null;
  }

  /** Whether the file was posted in a live message of a chat the user is an active member of. */
  async postedToMemberOf(manager: EntityManager, fileId: string, userId: string): Promise<boolean> {
    const shared: unknown[] = await manager.query(
      `SELECT 1 FROM messages m
         JOIN chat_members cm ON cm.chat_id = m.chat_id AND cm.user_id = $2 AND cm.state = 'active'
        WHERE m.file_id = $1 AND m.deleted_at IS NULL
        LIMIT 1`,
      [fileId, userId],
    );
    return shared.length > 0;
  }

  /**
   * The live messages of `senderId` carrying the file, posted in chats while `memberId` was an active
   * member, with their chat type and what group privacy looks at.
   */
  carriersSeenBy(
    manager: EntityManager,
    fileId: string,
    memberId: string,
    senderId: string,
  ): Promise<ReceivedCarrier[]> {
    return manager.query(
      `SELECT c.type AS chat_type, m.text, m.mentions, r.sender_id AS reply_to_sender_id
         FROM messages m
         JOIN chats c ON c.id = m.chat_id
         JOIN chat_members cm ON cm.chat_id = m.chat_id AND cm.user_id = $2 AND cm.state = 'active'
                              AND cm.joined_at <= m.created_at
         LEFT JOIN messages r ON r.id = m.reply_to_message_id
        WHERE m.file_id = $1 AND m.sender_id = $3 AND m.deleted_at IS NULL`,
      [fileId, memberId, senderId],
    );
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

  /** The image, or null when any rule fails (a malformed id included: file ids are UUIDs). */
  async ownedImage(fileId: string, accountId: string): Promise<OwnedImage | null> {
    if (!isUuid(fileId)) return null;
    const { rows } = await runNamed<OwnedImage>(this.dataSource, OWNED_IMAGE, [fileId, accountId]);
    return rows[0] ?? null;
  }
}
