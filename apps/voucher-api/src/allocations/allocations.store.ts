import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { PageWindow } from '@app/platform';
import { DataSource, EntityManager } from 'typeorm';
import type { TemplateStatus, TemplateType } from '../templates/entities/template.entity';
import { Allocation } from './entities/allocation.entity';

export type NewAllocation = Pick<
  Allocation,
  'applicationId' | 'templateId' | 'senderUserId' | 'createdBy' | 'quantity'
>;

/** An allocation in a sender's backpack, with the names of its application and template. */
export interface BackpackRow {
  id: string;
  application_name: string;
  template_name: string;
  type: TemplateType;
  issuer_name: string;
  template_status: TemplateStatus;
}

/** A counter of an allocation that one unit moves into when it leaves `sending_count`. */
export type UnitDestination = 'claimed_count' | 'remaining';

/**
 * The owner of `allocations`: stock in senders' backpacks. Units move between the counters with
 * single conditional UPDATEs (and the table's balance CHECK), so remaining + sending_count +
 * claimed_count always equals the quantity, and the database derives the status.
 */
@Injectable()
export class AllocationsStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The application's allocations (of one template, when given), newest first, and their count. */
  list(applicationId: string, templateId: string | undefined, page: PageWindow): Promise<[Allocation[], number]> {
    return this.dataSource.manager.findAndCount(Allocation, {
      where: templateId ? { applicationId, templateId } : { applicationId },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: page.offset,
      take: page.pageSize,
    });
  }

  /** A new allocation with all its units remaining, read back for the status the database derives. */
  async insert(manager: EntityManager, fields: NewAllocation): Promise<Allocation> {
    const allocation = await manager.save(
      manager.create(Allocation, { ...fields, remaining: fields.quantity, sendingCount: 0, claimedCount: 0 }),
    );
    return manager.findOneByOrFail(Allocation, { id: allocation.id });
  }

  /** The sender's allocations, newest first, and their count. */
  listForSender(senderUserId: string, page: PageWindow): Promise<[Allocation[], number]> {
    return this.dataSource.manager.findAndCount(Allocation, {
      where: { senderUserId },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: page.offset,
      take: page.pageSize,
    });
  }

  /** What the backpack shows beside each allocation: its application's and template's names. */
  async backpackDetails(allocationIds: string[]): Promise<Map<string, BackpackRow>> {
    if (allocationIds.length === 0) return new Map();
    const rows: BackpackRow[] = await this.dataSource.query(
      `SELECT al.id, a.name AS application_name, t.name AS template_name, t.type, t.issuer_name,
              t.status AS template_status
         FROM allocations al
         JOIN applications a ON a.id = al.application_id
         JOIN templates t ON t.id = al.template_id
        WHERE al.id = ANY($1)`,
      [allocationIds],
    );
    return new Map(rows.map((row) => [row.id, row]));
  }

  findOfSender(manager: EntityManager, allocationId: string, senderUserId: string): Promise<Allocation | null> {
    return manager.findOneBy(Allocation, { id: allocationId, senderUserId });
  }

  get(manager: EntityManager, allocationId: string): Promise<Allocation> {
    return manager.findOneByOrFail(Allocation, { id: allocationId });
  }

  /** One unit from remaining into sending; false when nothing remains. */
  async takeUnitToSend(manager: EntityManager, allocationId: string, senderUserId: string): Promise<boolean> {
    const [, taken]: [unknown, number] = await manager.query(
      `UPDATE allocations SET remaining = remaining - 1, sending_count = sending_count + 1, updated_at = now()
        WHERE id = $1 AND sender_user_id = $2 AND remaining > 0`,
      [allocationId, senderUserId],
    );
    return taken === 1;
  }

  /** One unit out of sending into `destination`; the CHECKs refuse anything that would unbalance the counters. */
  async moveSendingUnit(manager: EntityManager, allocationId: string, destination: UnitDestination): Promise<void> {
    const [, moved]: [unknown, number] = await manager.query(
      `UPDATE allocations SET sending_count = sending_count - 1, ${destination} = ${destination} + 1, updated_at = now()
        WHERE id = $1 AND sending_count > 0`,
      [allocationId],
    );
    if (moved !== 1) throw new Error(`allocation ${allocationId} has no unit in sending`);
  }
}
