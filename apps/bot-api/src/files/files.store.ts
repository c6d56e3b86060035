import { Injectable } from '@nestjs/common';
import { db, prepared } from '@app/bot-schema';
import { Database, execute, executeAll, executeFirst, isUuid, RowOf, SqlTarget } from '@app/platform';
import { sql } from 'kysely';
import type { StoredFile } from './entities/file.entity';
import { MediaFacts } from './media-probe';
import { FileOwner } from './storage/storage-keys';
import { UploadDeclaration } from './file-uploads.store';

const FILE = [
  'id',
  'bot_id as botId',
  'user_id as userId',
  'file_name as fileName',
  'mime_type as mimeType',
  'file_size as fileSize',
  'width',
  'height',
  'duration',
  'storage_key as storageKey',
  'created_at as createdAt',
] as const;

/** File sizes are int8 (strings from pg) but plain numbers everywhere else. */
function toFile(row: Omit<StoredFile, 'fileSize'> & { fileSize: string }): StoredFile {
  return { ...row, fileSize: Number(row.fileSize) };
}

/**
 * An image file owned by an account: uploaded by the account as a user, or by one of the bots the
 * account develops. One statement, so every rule (exists, is an image, is owned) is decided together
 * and a miss cannot tell which of them failed. A file another service checked this way is marked kept:
 * no message of bot-api references it, and the purge of unreferenced files must leave it.
 */
export const OWNED_IMAGE = prepared('files_owned_image', (db, p: { fileId: string; accountId: string }) =>
  db
    .updateTable('files as f')
    .set((eb) => ({ kept_at: eb.fn.coalesce('f.kept_at', sql<Date>`now()`) }))
    .where('f.id', '=', p.fileId)
    .where('f.mime_type', 'like', sql.lit('image/%'))
    .where((eb) =>
      eb.or([
        eb('f.user_id', '=', p.accountId),
        eb('f.bot_id', 'in', eb.selectFrom('bots as b').select('b.id').where('b.owner_id', '=', p.accountId)),
      ]),
    )
    .returning(['f.id', 'f.mime_type', 'f.width', 'f.height']),
);

/** A message of the file's owner in a chat the bot belongs to, with what group privacy looks at. */
export type ReceivedCarrier = Awaited<ReturnType<FilesStore['carriersSeenBy']>>[number];

export type OwnedImage = RowOf<typeof OWNED_IMAGE>;

/** The `files` table: completed uploads, every statement on them. */
@Injectable()
export class FilesStore {
  constructor(private readonly database: Database) {}

  /** The file with this id; null for an unknown or malformed id (file ids are UUIDs). */
  async byId(on: SqlTarget, fileId: string): Promise<StoredFile | null> {
    if (!isUuid(fileId)) return null;
    const row = await executeFirst(on, db.selectFrom('files').select(FILE).where('id', '=', fileId).limit(1));
    return row ? toFile(row) : null;
  }

  /** Whether the file was posted in a live message of a chat the user is an active member of. */
  async postedToMemberOf(on: SqlTarget, fileId: string, userId: string): Promise<boolean> {
    const shared = await executeAll(
      on,
      db
        .selectFrom('messages as m')
        .innerJoin('chat_members as cm', (join) =>
          join.onRef('cm.chat_id', '=', 'm.chat_id').on('cm.user_id', '=', userId).on('cm.state', '=', 'active'),
        )
        .select(sql.lit(1).as('one'))
        .where('m.file_id', '=', fileId)
        .where('m.deleted_at', 'is', null)
        .limit(1),
    );
    return shared.length > 0;
  }

  /**
   * The live messages of `senderId` carrying the file, posted in chats while `memberId` was an active
   * member, with their chat type and what group privacy looks at.
   */
  carriersSeenBy(on: SqlTarget, fileId: string, memberId: string, senderId: string) {
    return executeAll(
      on,
      db
        .selectFrom('messages as m')
        .innerJoin('chats as c', 'c.id', 'm.chat_id')
        .innerJoin('chat_members as cm', (join) =>
          join
            .onRef('cm.chat_id', '=', 'm.chat_id')
            .on('cm.user_id', '=', memberId)
            .on('cm.state', '=', 'active')
            .onRef('cm.joined_at', '<=', 'm.created_at'),
        )
        .leftJoin('messages as r', 'r.id', 'm.reply_to_message_id')
        .select((eb) => [
          'c.type as chat_type',
          'm.text',
          eb.ref('m.mentions').$castTo<string[]>().as('mentions'),
          'r.sender_id as reply_to_sender_id',
        ])
        .where('m.file_id', '=', fileId)
        .where('m.sender_id', '=', senderId)
        .where('m.deleted_at', 'is', null),
    );
  }

  async byIds(on: SqlTarget, ids: ReadonlyArray<string | null>): Promise<Map<string, StoredFile>> {
    const unique = [...new Set(ids.filter((id): id is string => id !== null))];
    if (unique.length === 0) return new Map();
    const rows = await executeAll(on, db.selectFrom('files').select(FILE).where('id', 'in', unique));
    return new Map(rows.map((row) => [row.id, toFile(row)]));
  }

  /** Whether a file was already made from this storage key (a key completes once). */
  async existsForKey(on: SqlTarget, storageKey: string): Promise<boolean> {
    const found = await executeAll(
      on,
      db.selectFrom('files').select(sql.lit(1).as('one')).where('storage_key', '=', storageKey).limit(1),
    );
    return found.length > 0;
  }

  /** The file a completed upload becomes. */
  async create(
    on: SqlTarget,
    owner: FileOwner,
    storageKey: string,
    declared: UploadDeclaration,
    facts: MediaFacts,
  ): Promise<StoredFile> {
    const row = await executeFirst(
      on,
      db
        .insertInto('files')
        .values({
          bot_id: owner.kind === 'bot' ? owner.botId : null,
          user_id: owner.kind === 'user' ? owner.userId : null,
          file_name: declared.fileName,
          mime_type: declared.mimeType,
          file_size: declared.fileSize,
          width: facts.width,
          height: facts.height,
          duration: facts.duration,
          storage_key: storageKey,
        })
        .returning(FILE),
    );
    return toFile(row!);
  }

  /**
   * Serialises a bot's storage reservations (upload credentials, multipart files) until the
   * transaction ends, so two parallel uploads cannot both fit under the quota that has room for one.
   */
  async lockBotStorage(on: SqlTarget, botId: string): Promise<void> {
    await execute(on, db.selectNoFrom(sql`pg_advisory_xact_lock(hashtext('bot-storage:' || ${botId}))`.as('locked')));
  }

  /** Bytes of the bot's completed files. */
  async bytesOfBot(on: SqlTarget, botId: string): Promise<number> {
    const row = await executeFirst(
      on,
      db
        .selectFrom('files')
        .select((eb) => eb.fn.coalesce(eb.fn.sum<string>('file_size'), sql.lit(0)).as('bytes'))
        .where('bot_id', '=', botId),
    );
    return Number(row!.bytes);
  }

  /**
   * Files older than `hours` that no message references and no other service keeps, locked for removal
   * (rows another instance holds are skipped).
   */
  async lockUnreferenced(
    on: SqlTarget,
    hours: number,
    limit: number,
  ): Promise<Array<{ id: string; storageKey: string }>> {
    return executeAll(
      on,
      db
        .selectFrom('files as f')
        .select(['f.id', 'f.storage_key as storageKey'])
        .where('f.created_at', '<', sql<Date>`now() - make_interval(hours => ${hours})`)
        .where('f.kept_at', 'is', null)
        .where((eb) =>
          eb.not(
            eb.exists(eb.selectFrom('messages as m').select(sql.lit(1).as('one')).whereRef('m.file_id', '=', 'f.id')),
          ),
        )
        .orderBy('f.created_at')
        .limit(limit)
        .forUpdate('f')
        .skipLocked(),
    );
  }

  async deleteByIds(on: SqlTarget, ids: string[]): Promise<void> {
    if (ids.length > 0) await execute(on, db.deleteFrom('files').where('id', '=', sql<string>`ANY(${ids}::uuid[])`));
  }

  /** The image, or null when any rule fails (a malformed id included: file ids are UUIDs). */
  async ownedImage(fileId: string, accountId: string): Promise<OwnedImage | null> {
    if (!isUuid(fileId)) return null;
    return (await OWNED_IMAGE.first(this.database, { fileId, accountId })) ?? null;
  }
}
