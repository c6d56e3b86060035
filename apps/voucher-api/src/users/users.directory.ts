import { Injectable } from '@nestjs/common';
import type { Account, AccountDirectory } from '@app/auth';
import { UsersStore } from './users.store';

/** Records every authenticated caller in the user directory, so senders and recipients can be found. */
@Injectable()
export class UsersDirectory implements AccountDirectory {
  constructor(private readonly users: UsersStore) {}

  upsert(account: Account): Promise<void> {
    return this.users.upsert(account.id, account.name);
  }
}
