import { Injectable } from '@nestjs/common';
import type { PageWindow } from '@app/platform';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { FriendRequest, FriendRequestStatus } from './entities/friend-request.entity';

export type NewFriendRequest = Pick<FriendRequest, 'botId' | 'userId' | 'message' | 'source' | 'status' | 'answeredAt'>;

/** Every statement on friend_requests: users' requests to befriend a bot and their answers. */
@Injectable()
export class FriendRequestsStore {
  /** Answers every request of the bot still waiting; the users whose request it answered. */
  async settlePending(manager: EntityManager, botId: string, status: FriendRequestStatus): Promise<string[]> {
    const [settled]: [{ user_id: string }[], number] = await manager.query(
      `UPDATE friend_requests SET status = $2, answered_at = now()
        WHERE bot_id = $1 AND status = 'pending' RETURNING user_id`,
      [botId, status],
    );
    return settled.map((row) => row.user_id);
  }

  /** One page of the bot's waiting requests, oldest first, and how many wait in all. */
  pendingPage(manager: EntityManager, botId: string, window: PageWindow): Promise<[FriendRequest[], number]> {
    return manager.getRepository(FriendRequest).findAndCount({
      where: { botId, status: 'pending' },
      order: { createdAt: 'ASC', id: 'ASC' },
      skip: window.offset,
      take: window.pageSize,
    });
  }

  /** The bot's request, locked until the transaction ends so one answer wins; null when it has none by that id. */
  lockOfBot(manager: EntityManager, botId: string, requestId: string): Promise<FriendRequest | null> {
    return manager
      .getRepository(FriendRequest)
      .findOne({ where: { id: requestId, botId }, lock: { mode: 'pessimistic_write' } });
  }

  async saveAnswer(manager: EntityManager, request: FriendRequest): Promise<void> {
    await manager.getRepository(FriendRequest).save(request);
  }

  /** The new request as stored, with its creation time. */
  async insert(manager: EntityManager, request: NewFriendRequest): Promise<FriendRequest> {
    const repo = manager.getRepository(FriendRequest);
    const id = randomUUID();
    await repo.insert({ id, ...request });
    return repo.findOneByOrFail({ id });
  }
}
