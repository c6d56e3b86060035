import { Injectable } from '@nestjs/common';
import type { Account, AccountDirectory } from '@app/auth';
import { isBotSystemUserId } from './bot-system-user-id';
import { isVirtualMemberId } from './virtual-member-id';
import { BotConfig } from '../config/bot.config';
import { UsersStore } from './users.store';
import { BotErrors } from '../bot-errors';

/** Bounds memory however many accounts call; the oldest entry goes first. */
const MAX_REMEMBERED = 10_000;

@Injectable()
export class UsersDirectory implements AccountDirectory {
  /** Account id → the name this process last wrote for it, and when. */
  private readonly recent = new Map<string, { name: string; at: number }>();

  constructor(
    private readonly users: UsersStore,
    private readonly config: BotConfig,
  ) {}

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
    const now = Date.now();
    const seen = this.recent.get(account.id);
    if (seen && seen.name === account.name && now - seen.at < this.config.USER_DIRECTORY_CACHE_MS) return;
    await this.users.upsert(account.id, account.name);
    this.remember(account, now);
  }

  private remember(account: Account, at: number): void {
    if (this.config.USER_DIRECTORY_CACHE_MS <= 0) return;
    this.recent.delete(account.id);
    if (this.recent.size >= MAX_REMEMBERED) this.recent.delete(this.recent.keys().next().value as string);
    this.recent.set(account.id, { name: account.name, at });
  }
}
