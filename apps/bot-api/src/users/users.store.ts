import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { namedStatement, runNamed } from '@app/platform';
import { DataSource, EntityManager } from 'typeorm';
import type { Person } from './person';
import { BotErrors } from '../bot-errors';

/** A person's name follows their account; a bot's system user is renamed only with its bot. */
const UPSERT_USER = namedStatement(
  'bot_api_users_upsert',
  `INSERT INTO users (id, name) VALUES ($1, $2)
   ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, updated_at = now()
   WHERE users.name IS DISTINCT FROM EXCLUDED.name AND NOT users.is_bot AND NOT users.is_virtual`,
);

interface PersonRow {
  id: string;
  name: string;
  username: string | null;
  is_bot: boolean;
  is_virtual: boolean;
}

function toPerson(r: PersonRow): Person {
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
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** One statement, and no write at all when the name is unchanged. */
  async upsert(id: string, name: string): Promise<void> {
    await runNamed(this.dataSource, UPSERT_USER, [id, name]);
  }

  /** The directory entries of these ids; unknown ids are left out. */
  async people(manager: EntityManager, ids: readonly string[]): Promise<Map<string, Person>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const rows: PersonRow[] = await manager.query(
      `SELECT id, name, username, is_bot, is_virtual FROM users WHERE id = ANY($1)`,
      [unique],
    );
    return new Map(rows.map((r) => [r.id, toPerson(r)]));
  }

  async person(manager: EntityManager, id: string): Promise<Person> {
    const person = (await this.people(manager, [id])).get(id);
    if (!person) throw BotErrors.error('NOT_FOUND', `User ${id} not found`);
    return person;
  }

  /**
   * A person or bot that ids in requests may name (add to a group, promote, ban, befriend): virtual
   * members are left out, so their ids answer 404 like unknown ones.
   */
  async realPerson(manager: EntityManager, id: string): Promise<Person> {
    const person = (await this.people(manager, [id])).get(id);
    if (!person || person.isVirtual) throw BotErrors.error('NOT_FOUND', `User ${id} not found`);
    return person;
  }

  /** The directory entry of a new virtual member; it never signs in and is never renamed by a login. */
  async createVirtualUser(manager: EntityManager, id: string, name: string): Promise<void> {
    await manager.query(`INSERT INTO users (id, name, is_virtual) VALUES ($1, $2, true)`, [id, name]);
  }

  async isBot(manager: EntityManager, id: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(`SELECT 1 FROM users WHERE id = $1 AND is_bot`, [id]);
    return rows.length > 0;
  }

  /** The user a bot speaks as in chats, created on its approval. */
  async createBotUser(manager: EntityManager, id: string, name: string, username: string | null): Promise<void> {
    await manager.query(`INSERT INTO users (id, name, is_bot, username) VALUES ($1, $2, true, $3)`, [
      id,
      name,
      username,
    ]);
  }

  /** The system user carries the bot's display name and @username into chats. */
  async renameBotUser(manager: EntityManager, id: string, name: string, username: string | null): Promise<void> {
    await manager.query(`UPDATE users SET name = $2, username = $3, updated_at = now() WHERE id = $1`, [
      id,
      name,
      username,
    ]);
  }
}
