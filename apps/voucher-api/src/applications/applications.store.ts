import { Injectable } from '@nestjs/common';
import { Database, executeAll, executeFirst, RowOf, SqlTarget } from '@app/platform';
import { ExpressionBuilder, sql } from 'kysely';
import { db, VoucherDB } from '../database/query';
import type { ApplicationFeatures } from './entities/application.entity';

/** The columns of an application, named as its views and rules read them. */
function applicationColumns(eb: ExpressionBuilder<VoucherDB, 'applications'>) {
  return [
    'id',
    'owner_id as ownerId',
    'name',
    'description',
    'status',
    'allowed_origins as allowedOrigins',
    eb.ref('features').$castTo<ApplicationFeatures>().as('features'),
    'created_at as createdAt',
    'updated_at as updatedAt',
  ] as const;
}

function selectApplications() {
  return db.selectFrom('applications').select(applicationColumns);
}

/** An application as a use case reads it. */
export type ApplicationRecord = RowOf<ReturnType<typeof selectApplications>>;

export type NewApplication = Pick<
  ApplicationRecord,
  'ownerId' | 'name' | 'description' | 'allowedOrigins' | 'status' | 'features'
>;

/** What an edit of an application may change; absent fields keep their value. */
export type ApplicationChanges = Partial<
  Pick<ApplicationRecord, 'name' | 'description' | 'allowedOrigins' | 'status' | 'features'>
>;

/** The owner of `applications`: every read and write of an application row goes through here. */
@Injectable()
export class ApplicationsStore {
  constructor(private readonly database: Database) {}

  listOwned(ownerId: string): Promise<ApplicationRecord[]> {
    return executeAll(
      this.database,
      selectApplications().where('owner_id', '=', ownerId).orderBy('created_at').orderBy('id'),
    );
  }

  async insert(on: SqlTarget, fields: NewApplication): Promise<ApplicationRecord> {
    const inserted = await executeFirst(
      on,
      db
        .insertInto('applications')
        .values({
          owner_id: fields.ownerId,
          name: fields.name,
          description: fields.description,
          allowed_origins: fields.allowedOrigins,
          status: fields.status,
          features: JSON.stringify(fields.features),
        })
        .returning(applicationColumns),
    );
    return inserted!;
  }

  /** The application when `ownerId` owns it; `lock` holds its row until the transaction ends. */
  findOwned(on: SqlTarget, ownerId: string, id: string, lock = false): Promise<ApplicationRecord | undefined> {
    const query = selectApplications().where('id', '=', id).where('owner_id', '=', ownerId);
    return executeFirst(on, lock ? query.forUpdate() : query);
  }

  /** Any owner's application (staff, and use cases that reached it through a row of their own). */
  find(on: SqlTarget, id: string, lock = false): Promise<ApplicationRecord | undefined> {
    const query = selectApplications().where('id', '=', id);
    return executeFirst(on, lock ? query.forUpdate() : query);
  }

  /** Writes the changed fields and stamps updated_at; returns the application as it is afterwards. */
  async update(on: SqlTarget, id: string, changes: ApplicationChanges): Promise<ApplicationRecord> {
    const updated = await executeFirst(
      on,
      db
        .updateTable('applications')
        .set({
          name: changes.name,
          description: changes.description,
          allowed_origins: changes.allowedOrigins,
          status: changes.status,
          features: changes.features === undefined ? undefined : JSON.stringify(changes.features),
          updated_at: sql`now()`,
        })
        .where('id', '=', id)
        .returning(applicationColumns),
    );
    if (!updated) throw new Error(`application ${id} is gone`);
    return updated;
  }
}
