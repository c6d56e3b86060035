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
  /** Required for message, photo, document, video, audio and location: it derives the update_id. */
  messageId?: number;
}

export interface EmittedUpdate {
  updateSeq: number;
  updateId: string;
}
