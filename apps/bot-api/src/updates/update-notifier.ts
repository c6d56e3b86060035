import { Inject, Injectable } from '@nestjs/common';
import { CHANNEL_BUS, type ChannelBus } from '@app/platform';
import { AfterCommit, CommitScope } from '../database/after-commit';

/** Carries the id of a bot that has a new Update. */
export const UPDATES_CHANNEL = 'bot-updates:new';

/** Carries a PollAnnouncement: a getUpdates call started, so older calls of its bot end with 409. */
export const POLLS_CHANNEL = 'bot-updates:polls';

/**
 * Announces "bot X has a new Update" on the channel bus only after the writing transaction committed,
 * so a woken poller always finds the row; a rolled-back transaction announces nothing.
 */
@Injectable()
export class UpdateNotifier {
  private readonly afterCommit: AfterCommit<string>;

  constructor(@Inject(CHANNEL_BUS) private readonly bus: ChannelBus) {
    this.afterCommit = new AfterCommit((botIds) => this.publish(new Set(botIds)));
  }

  notifyAfterCommit(on: CommitScope, botId: string): void {
    this.afterCommit.add(on, [botId]);
  }

  private publish(botIds: Iterable<string>): void {
    for (const botId of botIds) {
      // A lost announcement only delays a waiting poll until its recheck; the row itself is safe in PostgreSQL.
      this.bus.publish(UPDATES_CHANNEL, botId).catch(() => undefined);
    }
  }
}
