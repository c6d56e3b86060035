import { DataSource, EntityManager } from 'typeorm';
import { FileStorage } from './storage/file-storage';

const BATCH = 100;

/** Rows that own bytes in the file storage, locked for removal by the caller's transaction. */
export interface StoredRows {
  lock(manager: EntityManager, limit: number): Promise<Array<{ id: string; storageKey: string }>>;
  deleteByIds(manager: EntityManager, ids: string[]): Promise<unknown>;
}

/**
 * Removes rows and their bytes in batches, each batch in a transaction that holds its rows (a
 * concurrent pass skips them): the bytes first, then the rows, so no row is left pointing at nothing.
 * Answers how many were removed.
 */
export async function purgeStoredBytes(
  dataSource: DataSource,
  storage: FileStorage,
  rows: StoredRows,
): Promise<number> {
  let purged = 0;
  for (;;) {
    const batch = await dataSource.transaction(async (manager) => {
      const locked = await rows.lock(manager, BATCH);
      for (const row of locked) await storage.delete(row.storageKey);
      await rows.deleteByIds(
        manager,
        locked.map((row) => row.id),
      );
      return locked.length;
    });
    purged += batch;
    if (batch < BATCH) return purged;
  }
}
