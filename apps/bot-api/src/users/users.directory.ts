import { Injectable } from '@nestjs/common';
import type { Account, AccountDirectory } from '@app/auth';
import { LRUCache } from 'lru-cache';
import { isBotSystemUserId } from './bot-system-user-id';
import { isVirtualMemberId } from './virtual-member-id';
import { BotConfig } from '../config/bot.config';
import { UsersStore } from './users.store';
import { BotErrors } from '../bot-errors';

/** Bounds memory however many accounts call; the least recently seen goes first. */
const MAX_REMEMBERED = 10_000;

@Injectable()
export class UsersDirectory implements AccountDirectory {
  /** Account id → the name this process wrote for it within USER_DIRECTORY_CACHE_MS. */
  private readonly recent: LRUCache<string, string>;

  constructor(
    private readonly users: UsersStore,
    private readonly config: BotConfig,
  ) {
    this.recent = new LRUCache({ max: MAX_REMEMBERED, ttl: config.USER_DIRECTORY_CACHE_MS });
  }

  /**
   * One statement, and no write at all when nothing changed; a caller whose id and name this
   * process wrote within USER_DIRECTORY_CACHE_MS costs no statement. A bot's system user is never
   * renamed by a login.
   */
  async upsert(account: Account): Promise<void> {
    // An account under a bot's system user id would speak in chats as that bot.
    if (isBotSystemUserId(account.id)) throw BotErrors.error('UNAUTHORIZED', 'This account id is reserved for bots');
    // Nor may an account speak as a bot's virtual member.
    if (isVirtualMemberId(account.id)) {
      throw BotErrors.error('UNAUTHORIZED', 'This account id is reserved for virtual members');
    }
    if (this.recent.get(account.id) === account.name) return;
    await this.users.upsert(account.id, account.name);
    // 0 turns the cache off (for lru-cache a ttl of 0 would mean "never expires").
    if (this.config.USER_DIRECTORY_CACHE_MS > 0) this.recent.set(account.id, account.name);
  }
}
