import { randomUUID } from 'node:crypto';
import { ArgumentMetadata, Injectable } from '@nestjs/common';
import { createValidationPipe, Transaction } from '@app/platform';
import type { ChatBot } from '../chats/chats.store';
import { RECEIVE_SCOPE } from '../updates/updates.service';
import { PostMessageDto, TEXT_MAX } from './dto/client-messages.dto';
import type { Message } from './entities/message.entity';
import { formattedText } from './formatted-text';
import { MessageEventsService } from './message-events.service';
import { MessageRenderer } from './message-renderer';
import { textColumns } from './message-text';
import { MessagesStore, ReservedMessage } from './messages.store';

/** Commands, a mention, a hashtag and a URL for the detectors, and given formatting for the entity checks. */
const SAMPLE_BODY = {
  text: 'warm-up /start @warm_up_bot #warm_up https://example.org',
  entities: [{ type: 'bold', offset: 0, length: 7 }],
};
const BODY: ArgumentMetadata = { type: 'body', metatype: PostMessageDto };

/**
 * A user's message to a bot (ClientMessagesService.post) rehearsed for the warm-up, past the guard
 * that the warm-up's requests stop at: the body through the app's validation, the text through the
 * parsers and detectors, the chat's reservation and the write of the message with its Updates and
 * outbox rows, the Update payloads and the answer rendered and serialised. The chat and sender are
 * made up, so the reservation finds no chat and the write, which needs a member, writes no row; the
 * success path then continues on a reservation made up to match. Runs in a transaction that is
 * rolled back, so nothing is queued, woken or kept.
 */
@Injectable()
export class PostMessageRehearsal {
  private readonly pipe = createValidationPipe();

  constructor(
    private readonly store: MessagesStore,
    private readonly events: MessageEventsService,
    private readonly renderer: MessageRenderer,
  ) {}

  async run(tx: Transaction): Promise<void> {
    const dto: PostMessageDto = await this.pipe.transform(structuredClone(SAMPLE_BODY), BODY);
    const formatted = formattedText(dto.text!, { entities: dto.entities }, TEXT_MAX);
    const chatId = randomUUID();
    const senderId = `warm-up-${randomUUID()}`;
    if ((await this.store.reserveAsMember(tx, chatId, senderId, null)) !== 'chat') {
      throw new Error('the rehearsal found a chat it made up');
    }
    const reserved = madeUpReservation(chatId, senderId);
    const message: Message = {
      id: reserved.id,
      chatId,
      senderId,
      kind: 'text',
      ...textColumns(formatted.text, formatted.entities),
      fileId: null,
      replyToMessageId: null,
      mentions: dto.mentions ?? [],
      metadata: {},
      replyMarkup: null,
      createdAt: reserved.createdAt,
      editedAt: null,
      deletedAt: null,
    };
    const updates = this.events.messagePostedUpdates(reserved, message, null);
    if (updates === null) throw new Error('the rehearsal wrote no Update');
    if ((await this.store.insertReserved(tx, message, updates)) !== null) {
      throw new Error('the rehearsal wrote a message for a sender it made up');
    }
    JSON.stringify(await this.renderer.view(message, reserved.chat, reserved.sender, null, tx));
  }
}

/** What reserveAsMember reads for a private chat with one bot, without drawing a message id. */
function madeUpReservation(chatId: string, senderId: string): ReservedMessage {
  const bot: ChatBot = {
    id: randomUUID(),
    scopes: [RECEIVE_SCOPE],
    allowedUpdates: null,
    username: 'warm_up_bot',
    systemUserId: `warm-up-${randomUUID()}`,
    rank: 'member',
  };
  return {
    id: 1,
    createdAt: new Date(),
    chat: { id: chatId, type: 'private', title: null },
    sender: { id: senderId, name: 'warm-up', username: null, isBot: false },
    replyToSenderId: null,
    bots: [bot],
  };
}
