import { Injectable } from '@nestjs/common';
import { isBotAvailable } from '@app/bot-delivery';
import { randomUUID } from 'node:crypto';
import { BotErrors } from '../bot-errors';
import { BotTokenCache } from '../bots/auth/bot-token-cache';
import { isUniqueViolation } from '../bots/bot-errors';
import { BotsStore } from '../bots/bots.store';
import { Database, PageQueryDto, pageAnswer, pageWindow, SqlTarget } from '@app/platform';
import type { Bot, FriendRequestMode } from '../bots/entities/bot.entity';
import { UpdatesService } from '../updates/updates.service';
import { UsersStore } from '../users/users.store';
import { BotFriendsStore } from './bot-friends.store';
import { FriendRequestStatus } from './entities/friend-request.entity';
import {
  FriendRequestModeView,
  FriendRequestPage,
  FriendRequestSenderView,
  friendRequestUpdateMember,
  friendRequestView,
  FriendRequestView,
} from './friend-request.view';
import { FriendRequestsStore } from './friend-requests.store';

const CLIENT_SOURCE = 'client';

/** Friend relations between bots and users, and the requests that create them (spec 6.1, friend_request). */
@Injectable()
export class FriendsService {
  constructor(
    private readonly database: Database,
    private readonly updates: UpdatesService,
    private readonly tokenCache: BotTokenCache,
    private readonly bots: BotsStore,
    private readonly users: UsersStore,
    private readonly friends: BotFriendsStore,
    private readonly requests: FriendRequestsStore,
  ) {}

  /** Whether the user may open a private chat with the bot: an effective relation, or a bot that accepts everyone. */
  async canChat(on: SqlTarget, bot: Pick<Bot, 'id' | 'friendRequestMode'>, userId: string): Promise<boolean> {
    if (bot.friendRequestMode === 'auto_accept') return true;
    return this.friends.exists(on, bot.id, userId);
  }

  /**
   * The new mode also settles the requests still waiting: auto_accept accepts them, auto_reject
   * rejects them, so no request is left that nobody can answer.
   */
  async setMode(botId: string, mode: FriendRequestMode): Promise<true> {
    await this.database.transaction(async (tx) => {
      await this.bots.setFriendRequestMode(tx, botId, mode);
      if (mode === 'manual') return;
      const status: FriendRequestStatus = mode === 'auto_accept' ? 'accepted' : 'rejected';
      const settled = await this.requests.settlePending(tx, botId, status);
      if (status === 'accepted') await this.friends.add(tx, botId, settled);
    });
    this.tokenCache.invalidate(botId);
    return true;
  }

  async getMode(botId: string): Promise<{ friend_request_mode: FriendRequestMode }> {
    // The bot authenticated, so its row exists.
    return { friend_request_mode: (await this.bots.friendRequestModeOf(this.database, botId))! };
  }

  /** Pending requests, oldest first; only meaningful in manual mode, so other modes answer 409. */
  async listPending(botId: string, query: PageQueryDto): Promise<FriendRequestPage> {
    const window = pageWindow(query);
    await this.assertManual(this.database, botId);
    const [requests, total] = await this.requests.pendingPage(this.database, botId, window);
    const senders = await this.senders(
      this.database,
      requests.map((r) => r.userId),
    );
    return pageAnswer(
      requests.map((r) => friendRequestView(r, senders.get(r.userId)!)),
      total,
      window,
    );
  }

  async answer(botId: string, requestId: string, accept: boolean): Promise<FriendRequestView> {
    return this.database.transaction(async (tx) => {
      await this.assertManual(tx, botId, true);
      const request = await this.requests.lockOfBot(tx, botId, requestId);
      if (!request) throw BotErrors.notFound('Friend request');
      if (request.status !== 'pending') {
        throw BotErrors.error('CONFLICT', `The friend request was already ${request.status}`);
      }
      const answered = {
        ...request,
        status: accept ? ('accepted' as const) : ('rejected' as const),
        answeredAt: new Date(),
      };
      await this.requests.saveAnswer(tx, answered);
      if (accept) await this.friends.add(tx, botId, [request.userId]);
      const senders = await this.senders(tx, [request.userId]);
      return friendRequestView(answered, senders.get(request.userId)!);
    });
  }

  /**
   * A user's request: settled at once by auto_accept / auto_reject, or left pending for the bot
   * (manual), which then receives a friend_request Update written in the same transaction.
   */
  async send(userId: string, botId: string, message: string | undefined): Promise<FriendRequestView> {
    try {
      return await this.database.transaction(async (tx) => {
        // FOR SHARE: a concurrent mode change waits, so the request is settled under one mode.
        const bot = await this.bots.lockShared(tx, botId);
        if (!bot || !isBotAvailable(bot) || bot.systemUserId === userId) throw BotErrors.notFound('Bot');
        if (await this.friends.exists(tx, botId, userId))
          throw BotErrors.error('CONFLICT', 'You are already friends with this bot');

        const status: FriendRequestStatus =
          bot.friendRequestMode === 'auto_accept'
            ? 'accepted'
            : bot.friendRequestMode === 'auto_reject'
              ? 'rejected'
              : 'pending';
        const request = await this.requests.insert(tx, {
          id: randomUUID(),
          botId,
          userId,
          message: message ?? null,
          source: CLIENT_SOURCE,
          status,
          answeredAt: status === 'pending' ? null : new Date(),
        });
        if (status === 'accepted') await this.friends.add(tx, botId, [userId]);
        const senders = await this.senders(tx, [userId]);
        const view = friendRequestView(request, senders.get(userId)!);
        if (status === 'pending') {
          await this.updates.emit(tx, {
            bot,
            type: 'friend_request',
            payload: { friend_request: friendRequestUpdateMember(view) },
          });
        }
        return view;
      });
    } catch (error) {
      if (isUniqueViolation(error, 'friend_requests_one_pending')) {
        throw BotErrors.error('CONFLICT', 'A friend request to this bot is already waiting for an answer');
      }
      throw error;
    }
  }

  private async assertManual(on: SqlTarget, botId: string, lock = false): Promise<void> {
    const mode = await this.bots.friendRequestModeOf(on, botId, lock);
    if (mode !== 'manual') {
      throw BotErrors.error('CONFLICT', 'Friend requests are answered only in manual friend_request_mode');
    }
  }

  private async senders(on: SqlTarget, userIds: string[]): Promise<Map<string, FriendRequestSenderView>> {
    const people = await this.users.people(on, userIds);
    return new Map(
      [...people.values()].map((p) => [p.id, { id: p.id, name: p.name, username: p.username, is_bot: p.isBot }]),
    );
  }
}
