import { Injectable } from '@nestjs/common';
import { isUuid, namedStatement, runNamed } from '@app/platform';
import { DataSource } from 'typeorm';

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
  'files.owned_image',
  `UPDATE files f SET kept_at = coalesce(f.kept_at, now())
    WHERE f.id = $1
      AND f.mime_type LIKE 'image/%'
      AND (f.user_id = $2 OR f.bot_id IN (SELECT b.id FROM bots b WHERE b.owner_id = $2))
    RETURNING f.id, f.mime_type, f.width, f.height`,
);

@Injectable()
export class OwnedImagesStore {
  constructor(private readonly dataSource: DataSource) {}

  /** The image, or null when any rule fails (a malformed id included: file ids are UUIDs). */
  async find(fileId: string, accountId: string): Promise<OwnedImage | null> {
    if (!isUuid(fileId)) return null;
    const { rows } = await runNamed<OwnedImage>(this.dataSource, OWNED_IMAGE, [fileId, accountId]);
    return rows[0] ?? null;
  }
}
