import { Injectable } from '@nestjs/common';
import { CommitScope } from '../database/after-commit';
import { unixSeconds } from '../unix-time';
import { chatRefView, ChatRef } from './chat-view';
import { ChatsStore } from './chats.store';
import { UpdatesService } from '../updates/updates.service';
import { Person, userView } from '../users/person';
import { UsersStore } from '../users/users.store';
import type { MemberStatus } from './dto/chat.view';

export interface MemberChange {
  chat: ChatRef;
  /** Who made the change. */
  actor: Person;
  /** Whose membership changed. */
  target: Person;
  oldStatus: MemberStatus;
  newStatus: MemberStatus;
}

/** Membership Updates: my_chat_member for the bot that changed, chat_member for the other bots of the chat. */
@Injectable()
export class ChatEventsService {
  constructor(
    private readonly updates: UpdatesService,
    private readonly chats: ChatsStore,
    private readonly users: UsersStore,
  ) {}

  /** `memberChanged` for a change the user `actorId` made to the membership of `targetId`; returns the target. */
  async memberChangedBy(
    on: CommitScope,
    chat: ChatRef,
    actorId: string,
    targetId: string,
    oldStatus: MemberStatus,
    newStatus: MemberStatus,
  ): Promise<Person> {
    const people = await this.users.people(on, [actorId, targetId]);
    const target = people.get(targetId)!;
    await this.memberChanged(on, { chat, actor: people.get(actorId)!, target, oldStatus, newStatus });
    return target;
  }

  async memberChanged(on: CommitScope, change: MemberChange): Promise<void> {
    if (change.oldStatus === change.newStatus) return;
    const body = {
      chat: chatRefView(change.chat),
      from: userView(change.actor),
      date: unixSeconds(new Date()),
      old_chat_member: { user: userView(change.target), status: change.oldStatus },
      new_chat_member: { user: userView(change.target), status: change.newStatus },
    };
    if (change.target.isBot) {
      const bot = await this.chats.botOfUser(on, change.target.id, change.chat.id);
      if (bot) await this.updates.emit(on, { bot, type: 'my_chat_member', payload: { my_chat_member: body } });
    }
    for (const bot of await this.chats.botsInChat(on, change.chat.id)) {
      if (bot.systemUserId === change.target.id) continue;
      await this.updates.emit(on, { bot, type: 'chat_member', payload: { chat_member: body } });
    }
  }

  /** Goes to the bots that can act on it: owners and administrators of the group. */
  async joinRequested(on: CommitScope, chat: ChatRef, user: Person, requestId: string, at: Date): Promise<void> {
    const body = {
      id: requestId,
      chat: chatRefView(chat),
      from: userView(user),
      user_chat_id: user.id,
      date: unixSeconds(at),
    };
    for (const bot of await this.chats.botsInChat(on, chat.id)) {
      if (bot.rank !== 'owner' && bot.rank !== 'administrator') continue;
      await this.updates.emit(on, { bot, type: 'chat_join_request', payload: { chat_join_request: body } });
    }
  }
}
