import { Injectable } from '@nestjs/common';
import type { RenderedBody } from '@app/envelope';
import type { IdempotentCall } from '@app/idempotency';
import { AllocationsStore } from '../allocations/allocations.store';
import { toAllocationView } from '../allocations/dto/allocation.view';
import { SendParty, SendRecord, SendsStore } from '../allocations/sends.store';
import { requireKnownRecipient } from '../allocations/known-recipient';
import { TemplatesService } from '../templates/templates.service';
import { UsersStore } from '../users/users.store';
import { VoucherErrors } from '../voucher-errors';
import { VoucherFactory } from '../vouchers/voucher.factory';
import { toVoucherView } from '../vouchers/voucher.view';
import { Database, PageQueryDto, pageAnswer, pageWindow, SqlTarget } from '@app/platform';
import {
  BackpackItemView,
  BackpackPage,
  ClaimResult,
  InboxItemView,
  InboxPage,
  SendView,
  toSendView,
} from './dto/send.view';

/** The sends of the holder side: the sender's backpack and sends, the recipient's inbox and claims. */
@Injectable()
export class SendsService {
  constructor(
    private readonly database: Database,
    private readonly allocations: AllocationsStore,
    private readonly sends: SendsStore,
    private readonly templates: TemplatesService,
    private readonly users: UsersStore,
    private readonly factory: VoucherFactory,
  ) {}

  async backpack(userId: string, query: PageQueryDto): Promise<BackpackPage> {
    const window = pageWindow(query);
    const [allocations, total] = await this.allocations.listForSender(userId, window);
    const details = await this.allocations.backpackDetails(allocations.map((allocation) => allocation.id));
    const items = allocations.map((allocation): BackpackItemView => {
      const row = details.get(allocation.id)!;
      return {
        ...toAllocationView(allocation),
        application_name: row.application_name,
        template: {
          id: allocation.templateId,
          name: row.template_name,
          type: row.type,
          issuer_name: row.issuer_name,
          status: row.template_status,
        },
      };
    });
    return pageAnswer(items, total, window);
  }

  /**
   * One unit leaves the sender's remaining stock and waits, as `sending`, for the recipient's claim.
   * Under an Idempotency-Key the key is claimed first and the send stored with it, in this transaction.
   */
  send(
    senderId: string,
    allocationId: string,
    recipientUserId: string,
    call?: IdempotentCall,
  ): Promise<SendView | RenderedBody> {
    return this.database.transaction(async (tx) => {
      await call?.begin(tx);
      const allocation = await this.allocations.findOfSender(tx, allocationId, senderId);
      if (!allocation) throw VoucherErrors.notFound('Allocation');
      await this.templates.requireIssuable(tx, allocation.templateId);
      await requireKnownRecipient(this.users, tx, recipientUserId, 'recipient_user_id');
      if (!(await this.allocations.takeUnitToSend(tx, allocationId, senderId))) {
        throw VoucherErrors.error('INSUFFICIENT_STOCK', 'Nothing remains in this allocation to send');
      }
      const send = toSendView(await this.sends.insert(tx, { allocationId, senderUserId: senderId, recipientUserId }));
      return call ? call.complete(tx, send) : send;
    });
  }

  async inbox(userId: string, query: PageQueryDto): Promise<InboxPage> {
    const window = pageWindow(query);
    const [sends, total] = await this.sends.listForRecipient(userId, window);
    const details = await this.sends.inboxDetails(sends.map((send) => send.id));
    const items = sends.map((send): InboxItemView => {
      const row = details.get(send.id)!;
      return {
        ...toSendView(send),
        sender_name: row.sender_name,
        application_id: row.application_id,
        application_name: row.application_name,
        template: { id: row.template_id, name: row.template_name, type: row.type, issuer_name: row.issuer_name },
      };
    });
    return pageAnswer(items, total, window);
  }

  /**
   * The send's row lock serialises concurrent claims (and a racing cancel): exactly one sees
   * `sending`; the rest find it claimed and get 409. The stock was taken from the template when it
   * was allocated, so only the per-user limit is consumed here.
   */
  claim(userId: string, sendId: string): Promise<ClaimResult> {
    return this.database.transaction(async (tx) => {
      const send = await this.lockSend(tx, sendId, 'recipient_user_id', userId);
      if (send.status !== 'sending') {
        throw VoucherErrors.error('SEND_NOT_CLAIMABLE', `The send is already ${send.status}`);
      }
      const allocation = await this.allocations.get(tx, send.allocationId);
      const template = await this.templates.requireIssuable(tx, allocation.templateId);
      await this.templates.takePerUserQuota(tx, template, userId);
      const voucher = await this.factory.create(tx, template, userId, { sendId: send.id });
      await this.allocations.moveSendingUnit(tx, send.allocationId, 'claimed_count');
      const claimed = await this.sends.markClaimed(tx, send.id, voucher.id);
      return { send: toSendView(claimed), voucher: toVoucherView(voucher) };
    });
  }

  /** Only the sender can take a send back, and only while it is unclaimed; the unit returns to remaining. */
  cancel(userId: string, sendId: string): Promise<SendView> {
    return this.database.transaction(async (tx) => {
      const send = await this.lockSend(tx, sendId, 'sender_user_id', userId);
      if (send.status !== 'sending') {
        throw VoucherErrors.error('SEND_NOT_CANCELLABLE', `The send is already ${send.status}`);
      }
      await this.allocations.moveSendingUnit(tx, send.allocationId, 'remaining');
      return toSendView(await this.sends.markCancelled(tx, send.id));
    });
  }

  /** The send locked for this use case, when the caller plays the given part in it; otherwise 404. */
  private async lockSend(tx: SqlTarget, sendId: string, party: SendParty, userId: string): Promise<SendRecord> {
    const send = await this.sends.lockFor(tx, sendId, party, userId);
    if (!send) throw VoucherErrors.notFound('Send');
    return send;
  }
}
