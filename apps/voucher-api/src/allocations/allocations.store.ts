import { Injectable } from '@nestjs/common';
import { Database, execute, executeAll, executeFirst, PageWindow, RowOf, SqlTarget } from '@app/platform';
import { Expression, ExpressionBuilder, sql, SqlBool } from 'kysely';
import { db, VoucherDB } from '../database/query';
import type { AllocationStatus } from './entities/allocation.entity';

/** The columns of an allocation, named as its view reads them. */
function allocationColumns(eb: ExpressionBuilder<VoucherDB, 'allocations'>) {
  return [
    'id',
    'application_id as applicationId',
    'template_id as templateId',
    'sender_user_id as senderUserId',
    'created_by as createdBy',
    'quantity',
    'remaining',
    'sending_count as sendingCount',
    'claimed_count as claimedCount',
    eb.ref('status').$castTo<AllocationStatus>().as('status'),
    'created_at as createdAt',
    'updated_at as updatedAt',
  ] as const;
}

function selectAllocations() {
  return db.selectFrom('allocations').select(allocationColumns);
}

/** An allocation as its use cases read it. */
export type AllocationRecord = RowOf<ReturnType<typeof selectAllocations>>;

export type NewAllocation = Pick<
  AllocationRecord,
  'applicationId' | 'templateId' | 'senderUserId' | 'createdBy' | 'quantity'
>;

/** An allocation in a sender's backpack, with the names of its application and template. */
function backpackRows(allocationIds: string[]) {
  return db
    .selectFrom('allocations as al')
    .innerJoin('applications as a', 'a.id', 'al.application_id')
    .innerJoin('templates as t', 't.id', 'al.template_id')
    .select([
      'al.id',
      'a.name as application_name',
      't.name as template_name',
      't.type',
      't.issuer_name',
      't.status as template_status',
    ])
    .where(sql<boolean>`al.id = ANY(${allocationIds})`);
}

export type BackpackRow = RowOf<ReturnType<typeof backpackRows>>;

/** A counter of an allocation that one unit moves into when it leaves `sending_count`. */
export type UnitDestination = 'claimed_count' | 'remaining';

/**
 * The owner of `allocations`: stock in senders' backpacks. Units move between the counters with
 * single conditional UPDATEs (and the table's balance CHECK), so remaining + sending_count +
 * claimed_count always equals the quantity, and the database derives the status.
 */
@Injectable()
export class AllocationsStore {
  constructor(private readonly database: Database) {}

  /** The application's allocations (of one template, when given), newest first, and their count. */
  list(applicationId: string, templateId: string | undefined, page: PageWindow): Promise<[AllocationRecord[], number]> {
    return this.page(page, (eb) =>
      eb.and([
        eb('application_id', '=', applicationId),
        ...(templateId !== undefined ? [eb('template_id', '=', templateId)] : []),
      ]),
    );
  }

  /** A new allocation with all its units remaining, as stored, with the status the database derives. */
  async insert(on: SqlTarget, fields: NewAllocation): Promise<AllocationRecord> {
    const inserted = await executeFirst(
      on,
      db
        .insertInto('allocations')
        .values({
          application_id: fields.applicationId,
          template_id: fields.templateId,
          sender_user_id: fields.senderUserId,
          created_by: fields.createdBy,
          quantity: fields.quantity,
          remaining: fields.quantity,
          sending_count: 0,
          claimed_count: 0,
        })
        .returning(allocationColumns),
    );
    return inserted!;
  }

  /** The sender's allocations, newest first, and their count. */
  listForSender(senderUserId: string, page: PageWindow): Promise<[AllocationRecord[], number]> {
    return this.page(page, (eb) => eb('sender_user_id', '=', senderUserId));
  }

  /** What the backpack shows beside each allocation: its application's and template's names. */
  async backpackDetails(allocationIds: string[]): Promise<Map<string, BackpackRow>> {
    if (allocationIds.length === 0) return new Map();
    const rows = await executeAll(this.database, backpackRows(allocationIds));
    return new Map(rows.map((row) => [row.id, row]));
  }

  findOfSender(on: SqlTarget, allocationId: string, senderUserId: string): Promise<AllocationRecord | undefined> {
    return executeFirst(
      on,
      selectAllocations().where('id', '=', allocationId).where('sender_user_id', '=', senderUserId),
    );
  }

  async get(on: SqlTarget, allocationId: string): Promise<AllocationRecord> {
    const allocation = await executeFirst(on, selectAllocations().where('id', '=', allocationId));
    if (!allocation) throw new Error(`allocation ${allocationId} is gone`);
    return allocation;
  }

  /** One unit from remaining into sending; false when nothing remains. */
  async takeUnitToSend(on: SqlTarget, allocationId: string, senderUserId: string): Promise<boolean> {
    const { rowCount } = await execute(
      on,
      db
        .updateTable('allocations')
        .set((eb) => ({
          remaining: eb('remaining', '-', sql.lit(1)),
          sending_count: eb('sending_count', '+', sql.lit(1)),
          updated_at: sql`now()`,
        }))
        .where('id', '=', allocationId)
        .where('sender_user_id', '=', senderUserId)
        .where('remaining', '>', sql.lit(0)),
    );
    return rowCount === 1;
  }

  /** One unit out of sending into `destination`; the CHECKs refuse anything that would unbalance the counters. */
  async moveSendingUnit(on: SqlTarget, allocationId: string, destination: UnitDestination): Promise<void> {
    const { rowCount } = await execute(
      on,
      db
        .updateTable('allocations')
        .set((eb) => ({
          sending_count: eb('sending_count', '-', sql.lit(1)),
          [destination]: eb(destination, '+', sql.lit(1)),
          updated_at: sql`now()`,
        }))
        .where('id', '=', allocationId)
        .where('sending_count', '>', sql.lit(0)),
    );
    if (rowCount !== 1) throw new Error(`allocation ${allocationId} has no unit in sending`);
  }

  /** One page of the allocations `filter` keeps, newest first, and how many it keeps in all. */
  private async page(
    page: PageWindow,
    filter: (eb: ExpressionBuilder<VoucherDB, 'allocations'>) => Expression<SqlBool>,
  ): Promise<[AllocationRecord[], number]> {
    const allocations = await executeAll(
      this.database,
      selectAllocations()
        .where(filter)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .offset(page.offset)
        .limit(page.pageSize),
    );
    const counted = await executeFirst(
      this.database,
      db
        .selectFrom('allocations')
        .select((eb) => eb.fn.countAll<string>().as('total'))
        .where(filter),
    );
    return [allocations, Number(counted!.total)];
  }
}
