import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { TemplateType } from '../templates/entities/template.entity';
import type { PageWindow } from '@app/platform';
import { Send } from './entities/send.entity';

/** What the inbox shows beside each send: who sent it, and what the allocation hands out. */
export interface InboxRow {
  id: string;
  sender_name: string;
  application_id: string;
  application_name: string;
  template_id: string;
  template_name: string;
  type: TemplateType;
  issuer_name: string;
}

/** Who a send is locked for: its sender (cancel) or its recipient (claim). */
export type SendParty = 'sender_user_id' | 'recipient_user_id';

/** The owner of `sends`: one unit of an allocation on its way from the sender to a recipient. */
@Injectable()
export class SendsStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  insert(
    manager: EntityManager,
    fields: Pick<Send, 'allocationId' | 'senderUserId' | 'recipientUserId'>,
  ): Promise<Send> {
    return manager.save(manager.create(Send, { ...fields, status: 'sending' }));
  }

  /** Sends addressed to the user, newest first, and their count. */
  listForRecipient(recipientUserId: string, page: PageWindow): Promise<[Send[], number]> {
    return this.dataSource.manager.findAndCount(Send, {
      where: { recipientUserId },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: page.offset,
      take: page.pageSize,
    });
  }

  async inboxDetails(sendIds: string[]): Promise<Map<string, InboxRow>> {
    if (sendIds.length === 0) return new Map();
    const rows: InboxRow[] = await this.dataSource.query(
      `SELECT s.id, u.name AS sender_name, al.application_id, a.name AS application_name, al.template_id,
              t.name AS template_name, t.type, t.issuer_name
         FROM sends s
         JOIN users u ON u.id = s.sender_user_id
         JOIN allocations al ON al.id = s.allocation_id
         JOIN applications a ON a.id = al.application_id
         JOIN templates t ON t.id = al.template_id
        WHERE s.id = ANY($1)`,
      [sendIds],
    );
    return new Map(rows.map((row) => [row.id, row]));
  }

  /**
   * The send with its row locked, when the user plays the given part in it; null otherwise. The lock
   * serialises concurrent claims and a racing cancel.
   */
  async lockFor(manager: EntityManager, sendId: string, party: SendParty, userId: string): Promise<Send | null> {
    const [row]: { id: string }[] = await manager.query(
      `SELECT id FROM sends WHERE id = $1 AND ${party} = $2 FOR UPDATE`,
      [sendId, userId],
    );
    return row ? manager.findOneByOrFail(Send, { id: sendId }) : null;
  }

  async markClaimed(manager: EntityManager, sendId: string, voucherId: string): Promise<Send> {
    await manager.update(Send, { id: sendId }, { status: 'claimed', voucherId, claimedAt: new Date() });
    return manager.findOneByOrFail(Send, { id: sendId });
  }

  async markCancelled(manager: EntityManager, sendId: string): Promise<Send> {
    await manager.update(Send, { id: sendId }, { status: 'cancelled', cancelledAt: new Date() });
    return manager.findOneByOrFail(Send, { id: sendId });
  }
}
