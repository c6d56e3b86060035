import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Account, AccountDirectory } from '@app/auth';
import { ApiError } from '@app/envelope';
import { DataSource } from 'typeorm';
import { isBotSystemUserId } from '../bots/entities/bot.entity';

@Injectable()
export class UsersDirectory implements AccountDirectory {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** One statement, and no write at all when nothing changed. A bot's system user is never renamed by a login. */
  async upsert(account: Account): Promise<void> {
    // An account under a bot's system user id would speak in chats as that bot.
    if (isBotSystemUserId(account.id)) throw new ApiError(401, undefined, 'This account id is reserved for bots');
    await this.dataSource.query(
      `INSERT INTO users (id, name) VALUES ($1, $2)
       ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, updated_at = now()
       WHERE users.name IS DISTINCT FROM EXCLUDED.name AND NOT users.is_bot`,
      [account.id, account.name],
    );
  }
}
