import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { FileOwner } from './storage/storage-keys';

/** A pending upload as step 1 recorded it. */
export interface PendingUpload {
  id: string;
  storageKey: string;
  botId: string | null;
  userId: string | null;
  fileName: string;
  fileSize: number;
  mimeType: string;
  expiresAt: Date;
  uploadedAt: Date | null;
  completedAt: Date | null;
}

export interface UploadDeclaration {
  fileName: string;
  fileSize: number;
  mimeType: string;
}

interface UploadRow {
  id: string;
  storage_key: string;
  bot_id: string | null;
  user_id: string | null;
  file_name: string;
  file_size: string;
  mime_type: string;
  expires_at: Date;
  uploaded_at: Date | null;
  completed_at: Date | null;
}

const COLUMNS = `id, storage_key, bot_id, user_id, file_name, file_size, mime_type, expires_at, uploaded_at, completed_at`;

function toUpload(row: UploadRow): PendingUpload {
  return {
    id: row.id,
    storageKey: row.storage_key,
    botId: row.bot_id,
    userId: row.user_id,
    fileName: row.file_name,
    fileSize: Number(row.file_size),
    mimeType: row.mime_type,
    expiresAt: row.expires_at,
    uploadedAt: row.uploaded_at,
    completedAt: row.completed_at,
  };
}

/** Whether the upload belongs to this owner. */
export function ownedBy(upload: PendingUpload, owner: FileOwner): boolean {
  return owner.kind === 'bot' ? upload.botId === owner.botId : upload.userId === owner.userId;
}

/** The rows of `file_uploads`: pending uploads from upload-credentials until complete, then until purged. */
@Injectable()
export class FileUploadsStore {
  async insert(
    manager: EntityManager,
    owner: FileOwner,
    storageKey: string,
    declared: UploadDeclaration,
    expiresAt: Date,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO file_uploads (storage_key, bot_id, user_id, file_name, file_size, mime_type, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        storageKey,
        owner.kind === 'bot' ? owner.botId : null,
        owner.kind === 'user' ? owner.userId : null,
        declared.fileName,
        declared.fileSize,
        declared.mimeType,
        expiresAt,
      ],
    );
  }

  /** Declared bytes of the bot's uploads not completed yet: each reserves its size until complete or purge. */
  async pendingBytesOfBot(manager: EntityManager, botId: string): Promise<number> {
    const [row]: Array<{ bytes: string }> = await manager.query(
      `SELECT coalesce(sum(file_size), 0) AS bytes FROM file_uploads WHERE bot_id = $1 AND completed_at IS NULL`,
      [botId],
    );
    return Number(row.bytes);
  }

  /** The upload under this key; `lock` holds it for the rest of the transaction (complete, purge). */
  async byKey(manager: EntityManager, storageKey: string, lock = false): Promise<PendingUpload | null> {
    const rows: UploadRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM file_uploads WHERE storage_key = $1${lock ? ' FOR UPDATE' : ''}`,
      [storageKey],
    );
    return rows[0] ? toUpload(rows[0]) : null;
  }

  /**
   * Marks the bytes of an unexpired upload received, once: false when the URL was used before, the
   * upload expired or it is gone. The one statement makes concurrent PUTs of one URL race fairly.
   */
  async claimUpload(manager: EntityManager, storageKey: string): Promise<boolean> {
    // UPDATE … RETURNING through TypeORM yields [rows, affectedCount].
    const [rows]: [unknown[], number] = await manager.query(
      `UPDATE file_uploads SET uploaded_at = now()
        WHERE storage_key = $1 AND uploaded_at IS NULL AND completed_at IS NULL AND expires_at > now()
        RETURNING id`,
      [storageKey],
    );
    return rows.length === 1;
  }

  async markCompleted(manager: EntityManager, id: string): Promise<void> {
    await manager.query(`UPDATE file_uploads SET completed_at = now() WHERE id = $1`, [id]);
  }

  /**
   * Locks up to `limit` uploads that expired `graceSeconds` ago and were never completed; rows another
   * instance is purging are skipped. Run inside the purge's transaction.
   */
  async lockAbandoned(manager: EntityManager, graceSeconds: number, limit: number): Promise<PendingUpload[]> {
    const rows: UploadRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM file_uploads
        WHERE completed_at IS NULL AND expires_at < now() - make_interval(secs => $1)
        ORDER BY expires_at
        LIMIT $2
        FOR UPDATE SKIP LOCKED`,
      [graceSeconds, limit],
    );
    return rows.map(toUpload);
  }

  async deleteByIds(manager: EntityManager, ids: string[]): Promise<void> {
    if (ids.length > 0) await manager.query(`DELETE FROM file_uploads WHERE id = ANY($1::uuid[])`, [ids]);
  }

  /** Completed uploads past their expiry: the file row keeps the key, so the pending row has no more use. */
  async deleteCompletedBefore(manager: EntityManager, before: Date): Promise<number> {
    const [, affected]: [unknown[], number] = await manager.query(
      `DELETE FROM file_uploads WHERE completed_at IS NOT NULL AND expires_at < $1`,
      [before],
    );
    return affected;
  }
}
