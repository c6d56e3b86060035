import type { Database, SqlTarget } from '@app/platform';
import { FileStorage } from './storage/file-storage';

const BATCH = 100;

/** Rows that own bytes in the file storage, locked for removal by the caller's transaction. */
export interface StoredRows {
  lock(tx: SqlTarget, limit: number): Promise<Array<{ id: string; storageKey: string }>>;
  deleteByIds(tx: SqlTarget, ids: string[]): Promise<unknown>;
}

/**
 * Removes rows and their bytes in batches, each batch in a transaction that holds its rows (a
 * concurrent pass skips them): the bytes first, then the rows, so no row is left pointing at nothing.
 * Answers how many were removed.
 */
export async function purgeStoredBytes(database: Database, storage: FileStorage, rows: StoredRows): Promise<number> {
  let purged = 0;
  for (;;) {
    const batch = await database.transaction(async (tx) => {
      const locked = await rows.lock(tx, BATCH);
      for (const row of locked) await storage.delete(row.storageKey);
      await rows.deleteByIds(
        tx,
        locked.map((row) => row.id),
      );
      return locked.length;
    });
    purged += batch;
    if (batch < BATCH) return purged;
  }
}
