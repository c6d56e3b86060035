import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { User } from './user.entity';

/** A user as recipient search shows it. */
export interface UserSummary {
  id: string;
  name: string;
}

/** Escapes LIKE metacharacters so a keyword such as `50%` matches literally. */
export function likePattern(keyword: string): string {
  return `%${keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Every statement on users: the service's directory of accounts that have called it. */
@Injectable()
export class UsersStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** One statement, and no write at all when the name is unchanged. */
  async upsert(id: string, name: string): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO users (id, name) VALUES ($1, $2)
       ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, updated_at = now()
       WHERE users.name IS DISTINCT FROM EXCLUDED.name`,
      [id, name],
    );
  }

  /** Whether the user has ever called the service (a sender or recipient must have). */
  exists(manager: EntityManager, userId: string): Promise<boolean> {
    return manager.existsBy(User, { id: userId });
  }

  /** Users whose name contains the keyword (any case), or whose id is exactly the keyword; exact id first. */
  async search(keyword: string, limit: number): Promise<UserSummary[]> {
    const rows: UserSummary[] = await this.dataSource.query(
      `SELECT id, name FROM users
        WHERE id = $1 OR lower(name) LIKE lower($2) ESCAPE '\\'
        ORDER BY (id = $1) DESC, lower(name), id
        LIMIT $3`,
      [keyword, likePattern(keyword), limit],
    );
    return rows.map((row) => ({ id: row.id, name: row.name }));
  }
}
