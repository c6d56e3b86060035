import { Injectable } from '@nestjs/common';
import { db, type FileUploads } from '@app/bot-schema';
import { execute, executeAll, executeFirst, SqlTarget } from '@app/platform';
import { sql, type Selectable } from 'kysely';
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

const COLUMNS = [
  'id',
  'storage_key',
  'bot_id',
  'user_id',
  'file_name',
  'file_size',
  'mime_type',
  'expires_at',
  'uploaded_at',
  'completed_at',
] as const;

type UploadRow = Pick<Selectable<FileUploads>, (typeof COLUMNS)[number]>;

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
    on: SqlTarget,
    owner: FileOwner,
    storageKey: string,
    declared: UploadDeclaration,
    expiresAt: Date,
  ): Promise<void> {
    await execute(
      on,
      db.insertInto('file_uploads').values({
        storage_key: storageKey,
        bot_id: owner.kind === 'bot' ? owner.botId : null,
        user_id: owner.kind === 'user' ? owner.userId : null,
        file_name: declared.fileName,
        file_size: declared.fileSize,
        mime_type: declared.mimeType,
        expires_at: expiresAt,
      }),
    );
  }

  /** Declared bytes of the bot's uploads not completed yet: each reserves its size until complete or purge. */
  async pendingBytesOfBot(on: SqlTarget, botId: string): Promise<number> {
    const row = await executeFirst(
      on,
      db
        .selectFrom('file_uploads')
        .select((eb) => eb.fn.coalesce(eb.fn.sum<string>('file_size'), sql.lit(0)).as('bytes'))
        .where('bot_id', '=', botId)
        .where('completed_at', 'is', null),
    );
    return Number(row!.bytes);
  }

  /** The upload under this key; `lock` holds it for the rest of the transaction (complete, purge). */
  async byKey(on: SqlTarget, storageKey: string, lock = false): Promise<PendingUpload | null> {
    const byKey = db.selectFrom('file_uploads').select(COLUMNS).where('storage_key', '=', storageKey);
    const row = await executeFirst(on, lock ? byKey.forUpdate() : byKey);
    return row ? toUpload(row) : null;
  }

  /**
   * Marks the bytes of an unexpired upload received, once: false when the URL was used before, the
   * upload expired or it is gone. The one statement makes concurrent PUTs of one URL race fairly.
   */
  async claimUpload(on: SqlTarget, storageKey: string): Promise<boolean> {
    const rows = await executeAll(
      on,
      db
        .updateTable('file_uploads')
        .set({ uploaded_at: sql<Date>`now()` })
        .where('storage_key', '=', storageKey)
        .where('uploaded_at', 'is', null)
        .where('completed_at', 'is', null)
        .where('expires_at', '>', sql<Date>`now()`)
        .returning('id'),
    );
    return rows.length === 1;
  }

  async markCompleted(on: SqlTarget, id: string): Promise<void> {
    await execute(
      on,
      db
        .updateTable('file_uploads')
        .set({ completed_at: sql<Date>`now()` })
        .where('id', '=', id),
    );
  }

  /**
   * Locks up to `limit` uploads that expired `graceSeconds` ago and were never completed; rows another
   * instance is purging are skipped. Run inside the purge's transaction.
   */
  async lockAbandoned(on: SqlTarget, graceSeconds: number, limit: number): Promise<PendingUpload[]> {
    const rows = await executeAll(
      on,
      db
        .selectFrom('file_uploads')
        .select(COLUMNS)
        .where('completed_at', 'is', null)
        .where('expires_at', '<', sql<Date>`now() - make_interval(secs => ${graceSeconds})`)
        .orderBy('expires_at')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    );
    return rows.map(toUpload);
  }

  async deleteByIds(on: SqlTarget, ids: string[]): Promise<void> {
    if (ids.length > 0) {
      await execute(on, db.deleteFrom('file_uploads').where('id', '=', sql<string>`ANY(${ids}::uuid[])`));
    }
  }

  /** Completed uploads past their expiry: the file row keeps the key, so the pending row has no more use. */
  async deleteCompletedBefore(on: SqlTarget, before: Date): Promise<number> {
    const result = await execute(
      on,
      db.deleteFrom('file_uploads').where('completed_at', 'is not', null).where('expires_at', '<', before),
    );
    return result.rowCount ?? 0;
  }
}
