import { Injectable } from '@nestjs/common';
import { Database, execute, executeAll, executeFirst, RowOf, SqlTarget } from '@app/platform';
import { db } from '../database/query';

/** A holder's consents, each with the name of the application it was given to. */
function withApplicationName() {
  return db
    .selectFrom('authorizations as z')
    .innerJoin('applications as a', 'a.id', 'z.application_id')
    .select(['z.application_id', 'a.name as application_name', 'z.user_id', 'z.created_at']);
}

/** A holder's consent, with the name of the application it was given to. */
export type AuthorizationRow = RowOf<ReturnType<typeof withApplicationName>>;

/** The owner of `authorizations`: the holders' consent that the recipient rule of an issue reads. */
@Injectable()
export class AuthorizationsStore {
  constructor(private readonly database: Database) {}

  list(userId: string): Promise<AuthorizationRow[]> {
    return executeAll(
      this.database,
      withApplicationName().where('z.user_id', '=', userId).orderBy('z.created_at').orderBy('z.application_id'),
    );
  }

  find(on: SqlTarget, userId: string, applicationId: string): Promise<AuthorizationRow | undefined> {
    return executeFirst(
      on,
      withApplicationName().where('z.user_id', '=', userId).where('z.application_id', '=', applicationId),
    );
  }

  /** Consent is a set membership: a second insert keeps the first record. */
  async insert(on: SqlTarget, userId: string, applicationId: string): Promise<void> {
    await execute(
      on,
      db
        .insertInto('authorizations')
        .values({ user_id: userId, application_id: applicationId })
        .onConflict((oc) => oc.doNothing()),
    );
  }

  async delete(on: SqlTarget, userId: string, applicationId: string): Promise<void> {
    await execute(
      on,
      db.deleteFrom('authorizations').where('user_id', '=', userId).where('application_id', '=', applicationId),
    );
  }
}
