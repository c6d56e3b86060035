import { Inject, Injectable } from '@nestjs/common';
import { CHAT_ACTION_BOARD, type ChatActionBoard } from './chat-action-board';
import { ChatActionView } from './dto/message.view';

/** How long a chat action ("typing…") stays visible: spec 8 says 3 to 5 s. */
export const CHAT_ACTION_TTL_MS = 5000;

/** Ephemeral chat actions, shared by the replicas on the coordination backend. */
@Injectable()
export class ChatActionsService {
  constructor(@Inject(CHAT_ACTION_BOARD) private readonly board: ChatActionBoard) {}

  set(chatId: string, userId: string, action: string): Promise<void> {
    return this.board.put(chatId, userId, action, Date.now() + CHAT_ACTION_TTL_MS);
  }

  list(chatId: string): Promise<ChatActionView[]> {
    return this.board.live(chatId, Date.now());
  }
}
