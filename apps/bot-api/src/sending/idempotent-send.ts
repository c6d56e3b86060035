import { applyDecorators, createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { RenderedBody } from '@app/envelope';
import { HANDLER_STARTED, HandlerStartMark, Idempotent, idempotentCallOf, IdempotentCall } from '@app/idempotency';
import type { SqlTarget } from '@app/platform';
import type { Request } from 'express';
import { BotErrorDoc } from '../bot-errors';
import {
  CountedAfterClaim,
  DeferredQuota,
  deferredQuotaOf,
  MessagingOperation,
  SendOperation,
} from '../quotas/send-quota.guard';

/**
 * A send, edit, forward or copy made under the bot's `Idempotency-Key`. The use case calls `begin`
 * first in its transaction and `complete` last, so the message, its Updates and the stored answer
 * commit together or not at all; a request without the header gets no `IdempotentSend` and runs
 * exactly as before, without a statement more.
 */
export class IdempotentSend implements HandlerStartMark {
  private answer: RenderedBody | undefined;

  constructor(
    private readonly call: IdempotentCall,
    private readonly countQuota: DeferredQuota | undefined,
  ) {}

  /** Handed to the handler in place of the call, so it carries the handler's start to it. */
  [HANDLER_STARTED](): void {
    this.call[HANDLER_STARTED]();
  }

  /**
   * Claims the key (409 `IDEMPOTENCY_KEY_IN_USE` while another request with it runs, 409
   * `IDEMPOTENCY_KEY_REUSED` for another body, the stored answer for the same one), then counts the
   * send quota, so only the request that sends spends it.
   */
  async begin(on: SqlTarget): Promise<void> {
    await this.call.begin(on);
    await this.countQuota?.();
  }

  /** Stores the answer with the key, inside the transaction; it is also what this request answers. */
  async complete(on: SqlTarget, data: unknown): Promise<void> {
    this.answer = await this.call.complete(on, data);
  }

  /** The stored bytes, so that the first answer and every replay are identical. */
  rendered(): RenderedBody {
    if (!this.answer) throw new Error('an idempotent send answered without completing its key');
    return this.answer;
  }
}

/** The `IdempotentSend` of a request that carries an `Idempotency-Key`, else undefined. */
export const SendKey = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const req = context.switchToHttp().getRequest<Request>();
  const call = idempotentCallOf(req);
  const quota = deferredQuotaOf(req);
  // The quota guard left the count to the use case; without a claimed key nobody would count it.
  if (!call && quota) throw new Error('send quota deferred for a request without an idempotent call');
  return call ? new IdempotentSend(call, quota) : undefined;
});

/** What the handler answers: under a key the stored bytes, else the result as usual. */
export async function answered<T>(key: IdempotentSend | undefined, result: Promise<T>): Promise<T | RenderedBody> {
  const value = await result;
  return key ? key.rendered() : value;
}

const KEY_HINT =
  'Optional. Scoped to the bot: a retry with the same key and body answers the original result again and ' +
  'changes nothing (no second message, no second Update, no send quota spent)';

/** The 409s a keyed request may answer. */
export const IDEMPOTENT_SEND_ERRORS: BotErrorDoc[] = [
  { code: 'IDEMPOTENCY_KEY_REUSED', when: 'the Idempotency-Key was used with another body or method' },
  { code: 'IDEMPOTENCY_KEY_IN_USE', when: 'a request with the Idempotency-Key is still running; see Retry-After' },
];

const idempotent = () => Idempotent({ required: false, claim: 'in-transaction', keyHint: KEY_HINT });

/** A new message under an optional key: the send quota is counted after the claim (`SendOperation`). */
export const IdempotentSendOperation = () => applyDecorators(SendOperation(), CountedAfterClaim(), idempotent());

/** A change of an existing message under an optional key (`MessagingOperation`). */
export const IdempotentMessagingOperation = () => applyDecorators(MessagingOperation(), idempotent());
