import type { Bot } from '../bots/entities/bot.entity';
import type { UpdateMembers, UpdateType } from '../update-types';

/**
 * What emitting an Update needs to know about the receiving bot. Declared apart from UpdatesService,
 * so the stores that read recipients (a chat's bots) depend on this type, not on the service.
 */
export type UpdateRecipient = Pick<Bot, 'id' | 'scopes' | 'allowedUpdates'>;

export interface UpdateEvent {
  bot: UpdateRecipient;
  type: UpdateType;
  /** The members named for the type, e.g. `{ message: {...} }` or `{ friend_request: {...} }` (spec 6.2). */
  payload: UpdateMembers;
  /**
   * The posted message a message, photo, document, video, audio or location Update is about (required
   * for those types): its id derives the update_id and its recorded time is the Update's `created_at`,
   * so the same event written twice is one row of one day (the key the delivery tables are to be
   * partitioned by). Every other Update gets a random id and the time it is written.
   */
  message?: { id: number; createdAt: Date };
}

export interface EmittedUpdate {
  updateSeq: number;
  updateId: string;
}
