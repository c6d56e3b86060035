import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { chatRefView, ChatRef, Person, unixSeconds, userView } from '../messages/message-view';
import { UpdatesService } from '../updates/updates.service';
import { botOfUser, botsInChat } from './chat-queries';

export interface MemberChange {
  chat: ChatRef;
  /** Who made the change. */
  actor: Person;
  /** Whose membership changed. */
  target: Person;
  oldStatus: string;
  newStatus: string;
}

/** Membership Updates: my_chat_member for the bot that changed, chat_member for the other bots of the chat. */
@Injectable()
export class ChatEventsService {
  constructor(private readonly updates: UpdatesService) {}

  async memberChanged(manager: EntityManager, change: MemberChange): Promise<void> {
    if (change.oldStatus === change.newStatus) return;
    const body = {
      chat: chatRefView(change.chat),
      from: userView(change.actor),
      date: unixSeconds(new Date()),
      old_chat_member: { user: userView(change.target), status: change.oldStatus },
      new_chat_member: { user: userView(change.target), status: change.newStatus },
    };
    if (change.target.isBot) {
      const bot = await botOfUser(manager, change.target.id, change.chat.id);
      if (bot) await this.updates.emit(manager, { bot, type: 'my_chat_member', payload: { my_chat_member: body } });
    }
    for (const bot of await botsInChat(manager, change.chat.id)) {
      if (bot.systemUserId === change.target.id) continue;
      await this.updates.emit(manager, { bot, type: 'chat_member', payload: { chat_member: body } });
    }
  }

  /** Goes to the bots that can act on it: owners and administrators of the group. */
  async joinRequested(manager: EntityManager, chat: ChatRef, user: Person, requestId: string, at: Date): Promise<void> {
    const body = {
      id: requestId,
      chat: chatRefView(chat),
      from: userView(user),
      user_chat_id: user.id,
      date: unixSeconds(at),
    };
    for (const bot of await botsInChat(manager, chat.id)) {
      if (bot.rank !== 'owner' && bot.rank !== 'administrator') continue;
      await this.updates.emit(manager, { bot, type: 'chat_join_request', payload: { chat_join_request: body } });
    }
  }
}
