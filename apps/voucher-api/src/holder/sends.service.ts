import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { RenderedBody } from '@app/envelope';
import type { IdempotentCall } from '@app/idempotency';
import { DataSource, EntityManager } from 'typeorm';
import { AllocationsStore } from '../allocations/allocations.store';
import { toAllocationView } from '../allocations/dto/allocation.view';
import { SendParty, SendsStore } from '../allocations/sends.store';
import { requireKnownRecipient } from '../allocations/known-recipient';
import type { Send } from '../allocations/entities/send.entity';
import { TemplatesService } from '../templates/templates.service';
import { UsersStore } from '../users/users.store';
import { VoucherErrors } from '../voucher-errors';
import { VoucherFactory } from '../vouchers/voucher.factory';
import { toVoucherView } from '../vouchers/voucher.view';
import { PageQueryDto, pageAnswer, pageWindow } from '@app/platform';
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
    @InjectDataSource() private readonly dataSource: DataSource,
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
    return this.dataSource.transaction(async (manager) => {
      await call?.begin(manager);
      const allocation = await this.allocations.findOfSender(manager, allocationId, senderId);
      if (!allocation) throw VoucherErrors.notFound('Allocation');
      await this.templates.requireIssuable(manager, allocation.templateId);
      await requireKnownRecipient(this.users, manager, recipientUserId, 'recipient_user_id');
      if (!(await this.allocations.takeUnitToSend(manager, allocationId, senderId))) {
        throw VoucherErrors.error('INSUFFICIENT_STOCK', 'Nothing remains in this allocation to send');
      }
      const send = toSendView(
        await this.sends.insert(manager, { allocationId, senderUserId: senderId, recipientUserId }),
      );
      return call ? call.complete(manager, send) : send;
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
    return this.dataSource.transaction(async (manager) => {
      const send = await this.lockSend(manager, sendId, 'recipient_user_id', userId);
      if (send.status !== 'sending') {
        throw VoucherErrors.error('SEND_NOT_CLAIMABLE', `The send is already ${send.status}`);
      }
      const allocation = await this.allocations.get(manager, send.allocationId);
      const template = await this.templates.requireIssuable(manager, allocation.templateId);
      await this.templates.takePerUserQuota(manager, template, userId);
      const voucher = await this.factory.create(manager, template, userId, { sendId: send.id });
      await this.allocations.moveSendingUnit(manager, send.allocationId, 'claimed_count');
      const claimed = await this.sends.markClaimed(manager, send.id, voucher.id);
      return { send: toSendView(claimed), voucher: toVoucherView(voucher) };
    });
  }

  /** Only the sender can take a send back, and only while it is unclaimed; the unit returns to remaining. */
  cancel(userId: string, sendId: string): Promise<SendView> {
    return this.dataSource.transaction(async (manager) => {
      const send = await this.lockSend(manager, sendId, 'sender_user_id', userId);
      if (send.status !== 'sending') {
        throw VoucherErrors.error('SEND_NOT_CANCELLABLE', `The send is already ${send.status}`);
      }
      await this.allocations.moveSendingUnit(manager, send.allocationId, 'remaining');
      return toSendView(await this.sends.markCancelled(manager, send.id));
    });
  }

  /** The send locked for this use case, when the caller plays the given part in it; otherwise 404. */
  private async lockSend(manager: EntityManager, sendId: string, party: SendParty, userId: string): Promise<Send> {
    const send = await this.sends.lockFor(manager, sendId, party, userId);
    if (!send) throw VoucherErrors.notFound('Send');
    return send;
  }
}
