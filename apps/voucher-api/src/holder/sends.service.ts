import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiError } from '@app/envelope';
import { DataSource, EntityManager } from 'typeorm';
import { AllocationView, toAllocationView } from '../allocations/dto/allocation.view';
import { Allocation } from '../allocations/entities/allocation.entity';
import { Send } from '../allocations/entities/send.entity';
import { assertApplicationIssues } from '../applications/applications.service';
import { Application } from '../applications/entities/application.entity';
import { Template } from '../templates/entities/template.entity';
import { consumePerUserQuota } from '../templates/template-stock';
import { User } from '../users/user.entity';
import { VoucherFactory } from '../vouchers/voucher.factory';
import { toVoucherView, VoucherView } from '../vouchers/voucher.view';
import { Page, PageQueryDto } from '../pagination/page-query.dto';
import { InboxItemView, SendView, toSendView } from './dto/send.view';

export interface BackpackItemView extends AllocationView {
  application_name: string;
  template: { id: string; name: string; type: string; issuer_name: string; status: string };
}

export interface ClaimResult {
  send: SendView;
  voucher: VoucherView;
}

interface BackpackRow {
  id: string;
  application_name: string;
  template_name: string;
  type: string;
  issuer_name: string;
  template_status: string;
}

interface InboxRow {
  id: string;
  sender_name: string;
  application_id: string;
  application_name: string;
  template_id: string;
  template_name: string;
  type: string;
  issuer_name: string;
}

/**
 * Units move between the allocation's counters with single conditional UPDATEs (and the table's
 * balance CHECK), so remaining + sendingCount + claimedCount always equals the quantity.
 */
@Injectable()
export class SendsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly factory: VoucherFactory,
  ) {}

  async backpack(userId: string, query: PageQueryDto): Promise<Page<BackpackItemView>> {
    const manager = this.dataSource.manager;
    const [allocations, total] = await manager.findAndCount(Allocation, {
      where: { senderUserId: userId },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: (query.page - 1) * query.limit,
      take: query.limit,
    });
    const details: BackpackRow[] = allocations.length
      ? await manager.query(
          `SELECT al.id, a.name AS application_name, t.name AS template_name, t.type, t.issuer_name,
                  t.status AS template_status
             FROM allocations al
             JOIN applications a ON a.id = al.application_id
             JOIN templates t ON t.id = al.template_id
            WHERE al.id = ANY($1)`,
          [allocations.map((a) => a.id)],
        )
      : [];
    const byId = new Map(details.map((row) => [row.id, row]));
    const items = allocations.map((allocation) => {
      const row = byId.get(allocation.id)!;
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
    return { items, page: query.page, limit: query.limit, total };
  }

  /** One unit leaves the sender's remaining stock and waits, as `sending`, for the recipient's claim. */
  send(senderId: string, allocationId: string, recipientUserId: string): Promise<SendView> {
    return this.dataSource.transaction(async (manager) => {
      const allocation = await manager.findOneBy(Allocation, { id: allocationId, senderUserId: senderId });
      if (!allocation) throw ApiError.notFound('Allocation');
      await this.requireIssuableTemplate(manager, allocation.templateId);
      if (!(await manager.existsBy(User, { id: recipientUserId }))) {
        throw ApiError.badRequest('recipient_user_id is not a known user', [
          { field: 'recipient_user_id', problem: 'is not a known user' },
        ]);
      }
      const [, taken]: [unknown, number] = await manager.query(
        `UPDATE allocations SET remaining = remaining - 1, sending_count = sending_count + 1, updated_at = now()
          WHERE id = $1 AND sender_user_id = $2 AND remaining > 0`,
        [allocationId, senderId],
      );
      if (taken !== 1) {
        throw new ApiError(409, 'INSUFFICIENT_STOCK', 'Nothing remains in this allocation to send');
      }
      const send = await manager.save(
        manager.create(Send, { allocationId, senderUserId: senderId, recipientUserId, status: 'sending' }),
      );
      return toSendView(send);
    });
  }

  async inbox(userId: string, query: PageQueryDto): Promise<Page<InboxItemView>> {
    const manager = this.dataSource.manager;
    const [sends, total] = await manager.findAndCount(Send, {
      where: { recipientUserId: userId },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: (query.page - 1) * query.limit,
      take: query.limit,
    });
    const details: InboxRow[] = sends.length
      ? await manager.query(
          `SELECT s.id, u.name AS sender_name, al.application_id, a.name AS application_name, al.template_id,
                  t.name AS template_name, t.type, t.issuer_name
             FROM sends s
             JOIN users u ON u.id = s.sender_user_id
             JOIN allocations al ON al.id = s.allocation_id
             JOIN applications a ON a.id = al.application_id
             JOIN templates t ON t.id = al.template_id
            WHERE s.id = ANY($1)`,
          [sends.map((s) => s.id)],
        )
      : [];
    const byId = new Map(details.map((row) => [row.id, row]));
    const items = sends.map((send) => {
      const row = byId.get(send.id)!;
      return {
        ...toSendView(send),
        sender_name: row.sender_name,
        application_id: row.application_id,
        application_name: row.application_name,
        template: { id: row.template_id, name: row.template_name, type: row.type, issuer_name: row.issuer_name },
      };
    });
    return { items, page: query.page, limit: query.limit, total };
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
        throw new ApiError(409, 'SEND_NOT_CLAIMABLE', `The send is already ${send.status}`);
      }
      const allocation = await manager.findOneByOrFail(Allocation, { id: send.allocationId });
      const template = await this.requireIssuableTemplate(manager, allocation.templateId);
      if (!(await consumePerUserQuota(manager, template.id, userId, template.perUserLimit))) {
        throw ApiError.conflict(
          'PER_USER_LIMIT_REACHED',
          `You already hold the template's limit of ${template.perUserLimit} voucher(s)`,
        );
      }
      const voucher = await this.factory.create(manager, template, userId, { sendId: send.id });
      await this.moveUnit(manager, send.allocationId, 'claimed_count');
      await manager.update(Send, { id: send.id }, { status: 'claimed', voucherId: voucher.id, claimedAt: new Date() });
      const claimed = await manager.findOneByOrFail(Send, { id: send.id });
      return { send: toSendView(claimed), voucher: toVoucherView(voucher) };
    });
  }

  /** Only the sender can take a send back, and only while it is unclaimed; the unit returns to remaining. */
  cancel(userId: string, sendId: string): Promise<SendView> {
    return this.dataSource.transaction(async (manager) => {
      const send = await this.lockSend(manager, sendId, 'sender_user_id', userId);
      if (send.status !== 'sending') {
        throw new ApiError(409, 'SEND_NOT_CANCELLABLE', `The send is already ${send.status}`);
      }
      await this.moveUnit(manager, send.allocationId, 'remaining');
      await manager.update(Send, { id: send.id }, { status: 'cancelled', cancelledAt: new Date() });
      return toSendView(await manager.findOneByOrFail(Send, { id: send.id }));
    });
  }

  /** The send locked for this use case, when the caller plays the given part in it; otherwise 404. */
  private async lockSend(
    manager: EntityManager,
    sendId: string,
    party: 'sender_user_id' | 'recipient_user_id',
    userId: string,
  ): Promise<Send> {
    const [row]: { id: string }[] = await manager.query(
      `SELECT id FROM sends WHERE id = $1 AND ${party} = $2 FOR UPDATE`,
      [sendId, userId],
    );
    if (!row) throw ApiError.notFound('Send');
    return manager.findOneByOrFail(Send, { id: sendId });
  }

  /** Moves one unit out of sending into `target`; the CHECKs refuse anything that would unbalance the counters. */
  private async moveUnit(manager: EntityManager, allocationId: string, target: 'claimed_count' | 'remaining') {
    const [, moved]: [unknown, number] = await manager.query(
      `UPDATE allocations SET sending_count = sending_count - 1, ${target} = ${target} + 1, updated_at = now()
        WHERE id = $1 AND sending_count > 0`,
      [allocationId],
    );
    if (moved !== 1) throw new Error(`allocation ${allocationId} has no unit in sending`);
  }

  private async requireIssuableTemplate(manager: EntityManager, templateId: string): Promise<Template> {
    const template = await manager.findOneByOrFail(Template, { id: templateId });
    assertApplicationIssues(await manager.findOneByOrFail(Application, { id: template.applicationId }));
    if (template.status !== 'active') {
      throw ApiError.conflict(
        'TEMPLATE_NOT_ACTIVE',
        `The template is ${template.status}; its vouchers cannot be handed out now`,
      );
    }
    if (template.validTo && template.validTo.getTime() <= Date.now()) {
      throw ApiError.conflict('TEMPLATE_NOT_ACTIVE', "The template's validity has ended");
    }
    return template;
  }
}
