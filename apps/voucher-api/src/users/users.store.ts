import { Injectable } from '@nestjs/common';
import { Database, execute, executeAll, executeFirst, SqlTarget } from '@app/platform';
import { Selectable, sql } from 'kysely';
import { db } from '../database/query';
import type { Users } from '../database/schema.generated';

/** A user as recipient search shows it. */
export type UserSummary = Pick<Selectable<Users>, 'id' | 'name'>;

/** Escapes LIKE metacharacters so a keyword such as `50%` matches literally. */
export function likePattern(keyword: string): string {
  return `%${keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Every statement on users: the service's directory of accounts that have called it. */
@Injectable()
export class UsersStore {
  constructor(private readonly database: Database) {}

  /** One statement, and no write at all when the name is unchanged. */
  async upsert(id: string, name: string): Promise<void> {
    await execute(
      this.database,
      db
        .insertInto('users')
        .values({ id, name })
        .onConflict((oc) =>
          oc
            .column('id')
            .doUpdateSet((eb) => ({ name: eb.ref('excluded.name'), updated_at: sql`now()` }))
            .where(sql<boolean>`users.name IS DISTINCT FROM excluded.name`),
        ),
    );
  }

  /** Whether the user has ever called the service (a sender or recipient must have). */
  async exists(on: SqlTarget, userId: string): Promise<boolean> {
    return (await executeFirst(on, db.selectFrom('users').select('id').where('id', '=', userId))) !== undefined;
  }

  /** Users whose name contains the keyword (any case), or whose id is exactly the keyword; exact id first. */
  search(keyword: string, limit: number): Promise<UserSummary[]> {
    return executeAll(
      this.database,
      db
        .selectFrom('users')
        .select(['id', 'name'])
        .where((eb) =>
          eb.or([eb('id', '=', keyword), sql<boolean>`lower(name) LIKE lower(${likePattern(keyword)}) ESCAPE '\\'`]),
        )
        .orderBy(sql`(id = ${keyword})`, 'desc')
        .orderBy(sql`lower(name)`)
        .orderBy('id')
        .limit(limit),
    );
  }
}
