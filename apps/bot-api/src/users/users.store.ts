import { Injectable } from '@nestjs/common';
import { Database, execute, executeAll, executeFirst, RowOf, SqlTarget } from '@app/platform';
import { db, prepared } from '@app/bot-schema';
import { sql } from 'kysely';
import type { Person } from './person';
import { BotErrors } from '../bot-errors';

/** A person's name follows their account; a bot's system user is renamed only with its bot. */
const UPSERT_USER = prepared('bot_api_users_upsert', (db, p: { id: string; name: string }) =>
  db
    .insertInto('users')
    .values({ id: p.id, name: p.name })
    .onConflict((oc) =>
      oc
        .column('id')
        .doUpdateSet({ name: (eb) => eb.ref('excluded.name'), updated_at: sql`now()` })
        .where('users.name', 'is distinct from', (eb) => eb.ref('excluded.name'))
        .where((eb) => eb.not(eb.ref('users.is_bot')))
        .where((eb) => eb.not(eb.ref('users.is_virtual'))),
    ),
);

function peopleQuery(ids: string[]) {
  return db
    .selectFrom('users')
    .select(['id', 'name', 'username', 'is_bot', 'is_virtual'])
    .where((eb) => eb('id', '=', eb.fn.any(eb.val(ids))));
}

function toPerson(r: RowOf<ReturnType<typeof peopleQuery>>): Person {
  return {
    id: r.id,
    name: r.name,
    username: r.username,
    isBot: r.is_bot,
    ...(r.is_virtual ? { isVirtual: true } : {}),
  };
}

/** The user directory: people who called the service and the system users bots speak as. */
@Injectable()
export class UsersStore {
  constructor(private readonly database: Database) {}

  /** One statement, and no write at all when the name is unchanged. */
  async upsert(id: string, name: string): Promise<void> {
    await UPSERT_USER.run(this.database, { id, name });
  }

  /** The directory entries of these ids; unknown ids are left out. */
  async people(on: SqlTarget, ids: readonly string[]): Promise<Map<string, Person>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const rows = await executeAll(on, peopleQuery(unique));
    return new Map(rows.map((r) => [r.id, toPerson(r)]));
  }

  async person(on: SqlTarget, id: string): Promise<Person> {
    const person = (await this.people(on, [id])).get(id);
    if (!person) throw BotErrors.error('NOT_FOUND', `User ${id} not found`);
    return person;
  }

  /**
   * A person or bot that ids in requests may name (add to a group, promote, ban, befriend): virtual
   * members are left out, so their ids answer 404 like unknown ones.
   */
  async realPerson(on: SqlTarget, id: string): Promise<Person> {
    const person = (await this.people(on, [id])).get(id);
    if (!person || person.isVirtual) throw BotErrors.error('NOT_FOUND', `User ${id} not found`);
    return person;
  }

  /** The directory entry of a new virtual member; it never signs in and is never renamed by a login. */
  async createVirtualUser(on: SqlTarget, id: string, name: string): Promise<void> {
    await execute(on, db.insertInto('users').values({ id, name, is_virtual: true }));
  }

  async isBot(on: SqlTarget, id: string): Promise<boolean> {
    const row = await executeFirst(
      on,
      db
        .selectFrom('users')
        .select(sql.lit(1).as('found'))
        .where('id', '=', id)
        .where((eb) => eb.ref('is_bot')),
    );
    return row !== undefined;
  }

  /** The user a bot speaks as in chats, created on its approval. */
  async createBotUser(on: SqlTarget, id: string, name: string, username: string | null): Promise<void> {
    await execute(on, db.insertInto('users').values({ id, name, is_bot: true, username }));
  }

  /** The system user carries the bot's display name and @username into chats. */
  async renameBotUser(on: SqlTarget, id: string, name: string, username: string | null): Promise<void> {
    await execute(
      on,
      db
        .updateTable('users')
        .set({ name, username, updated_at: sql`now()` })
        .where('id', '=', id),
    );
  }
}
