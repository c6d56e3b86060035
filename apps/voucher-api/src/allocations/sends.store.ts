import { Injectable } from '@nestjs/common';
import { Database, executeAll, executeFirst, PageWindow, RowOf, SqlTarget } from '@app/platform';
import { sql, UpdateQueryBuilder, UpdateResult } from 'kysely';
import { db, VoucherDB } from '../database/query';

/** The columns of a send, named as its view reads them. */
function sendColumns() {
  return [
    'id',
    'allocation_id as allocationId',
    'sender_user_id as senderUserId',
    'recipient_user_id as recipientUserId',
    'status',
    'voucher_id as voucherId',
    'claimed_at as claimedAt',
    'cancelled_at as cancelledAt',
    'created_at as createdAt',
    'updated_at as updatedAt',
  ] as const;
}

function selectSends() {
  return db.selectFrom('sends').select(sendColumns());
}

/** A send as its use cases read it. */
export type SendRecord = RowOf<ReturnType<typeof selectSends>>;

/** What the inbox shows beside each send: who sent it, and what the allocation hands out. */
function inboxRows(sendIds: string[]) {
  return db
    .selectFrom('sends as s')
    .innerJoin('users as u', 'u.id', 's.sender_user_id')
    .innerJoin('allocations as al', 'al.id', 's.allocation_id')
    .innerJoin('applications as a', 'a.id', 'al.application_id')
    .innerJoin('templates as t', 't.id', 'al.template_id')
    .select([
      's.id',
      'u.name as sender_name',
      'al.application_id',
      'a.name as application_name',
      'al.template_id',
      't.name as template_name',
      't.type',
      't.issuer_name',
    ])
    .where(sql<boolean>`s.id = ANY(${sendIds})`);
}

export type InboxRow = RowOf<ReturnType<typeof inboxRows>>;

type SendUpdate = UpdateQueryBuilder<VoucherDB, 'sends', 'sends', UpdateResult>;

/** Who a send is locked for: its sender (cancel) or its recipient (claim). */
export type SendParty = 'sender_user_id' | 'recipient_user_id';

/** The owner of `sends`: one unit of an allocation on its way from the sender to a recipient. */
@Injectable()
export class SendsStore {
  constructor(private readonly database: Database) {}

  async insert(
    on: SqlTarget,
    fields: Pick<SendRecord, 'allocationId' | 'senderUserId' | 'recipientUserId'>,
  ): Promise<SendRecord> {
    const inserted = await executeFirst(
      on,
      db
        .insertInto('sends')
        .values({
          allocation_id: fields.allocationId,
          sender_user_id: fields.senderUserId,
          recipient_user_id: fields.recipientUserId,
          status: 'sending',
        })
        .returning(sendColumns()),
    );
    return inserted!;
  }

  /** Sends addressed to the user, newest first, and their count. */
  async listForRecipient(recipientUserId: string, page: PageWindow): Promise<[SendRecord[], number]> {
    const sends = await executeAll(
      this.database,
      selectSends()
        .where('recipient_user_id', '=', recipientUserId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .offset(page.offset)
        .limit(page.pageSize),
    );
    const counted = await executeFirst(
      this.database,
      db
        .selectFrom('sends')
        .select((eb) => eb.fn.countAll<string>().as('total'))
        .where('recipient_user_id', '=', recipientUserId),
    );
    return [sends, Number(counted!.total)];
  }

  async inboxDetails(sendIds: string[]): Promise<Map<string, InboxRow>> {
    if (sendIds.length === 0) return new Map();
    const rows = await executeAll(this.database, inboxRows(sendIds));
    return new Map(rows.map((row) => [row.id, row]));
  }

  /**
   * The send with its row locked, when the user plays the given part in it; undefined otherwise. The
   * lock serialises concurrent claims and a racing cancel.
   */
  lockFor(on: SqlTarget, sendId: string, party: SendParty, userId: string): Promise<SendRecord | undefined> {
    return executeFirst(on, selectSends().where('id', '=', sendId).where(party, '=', userId).forUpdate());
  }

  markClaimed(on: SqlTarget, sendId: string, voucherId: string): Promise<SendRecord> {
    return this.settle(
      on,
      sendId,
      db.updateTable('sends').set({ status: 'claimed', voucher_id: voucherId, claimed_at: sql`now()` }),
    );
  }

  markCancelled(on: SqlTarget, sendId: string): Promise<SendRecord> {
    return this.settle(on, sendId, db.updateTable('sends').set({ status: 'cancelled', cancelled_at: sql`now()` }));
  }

  /** Applies a settling update (claim, cancel) to the send and returns it as it is afterwards. */
  private async settle(on: SqlTarget, sendId: string, update: SendUpdate): Promise<SendRecord> {
    const settled = await executeFirst(
      on,
      update
        .set({ updated_at: sql`now()` })
        .where('id', '=', sendId)
        .returning(sendColumns()),
    );
    if (!settled) throw new Error(`send ${sendId} is gone`);
    return settled;
  }
}
