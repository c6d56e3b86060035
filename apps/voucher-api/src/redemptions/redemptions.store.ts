import { Injectable } from '@nestjs/common';
import { ClaimValues, claimedKey, withClaim } from '@app/idempotency';
import { Database, execute, executeFirst, RowOf, SqlTarget } from '@app/platform';
import { sql } from 'kysely';
import { db } from '../database/query';
import { CredentialKey, CredentialParameters, perCredentialType, redeemVoucher } from '../vouchers/vouchers.store';
import type { VoucherViewSource } from '../vouchers/voucher.view';
import type { RedemptionViewSource, ReversalViewSource } from './redemption.view';

/** What a redemption records besides the voucher: the caller's order and where it happened. */
export interface RedemptionFacts {
  externalOrderId: string;
  storeId: string | null;
  operatorId: string | null;
  occurredAt: Date;
}

/** A redeem's values by name: the claim's, the credential's and the redemption's facts. */
export type RedeemParameters = ClaimValues & CredentialParameters & RedemptionFacts;

/** The columns of a redemption as its view reads them. */
const REDEMPTION_VIEW = [
  'id',
  'voucher_id as voucherId',
  'external_order_id as externalOrderId',
  'store_id as storeId',
  'operator_id as operatorId',
  'occurred_at as occurredAt',
  'status',
  'created_at as createdAt',
] as const;

const REVERSAL_VIEW = [
  'id',
  'redemption_id as redemptionId',
  'reason',
  'operator_id as operatorId',
  'created_at as createdAt',
] as const;

/**
 * Claims the idempotency key, consumes the voucher and records its redemption in ONE statement; the
 * voucher is touched only when the key was claimed. No redeemed row back (its columns null) means the
 * key was not claimed, or the voucher was missing or not redeemable, and nothing but the claim was written.
 */
const REDEEM = perCredentialType('redemption_redeem', (db, p: RedeemParameters, voucherId) =>
  withClaim(db, p)
    .with('redeemed', (qb) => redeemVoucher(qb as unknown as typeof db, voucherId, claimedKey))
    .with('redemption', (qb) =>
      qb
        .insertInto('redemptions')
        .columns(['application_id', 'voucher_id', 'external_order_id', 'store_id', 'operator_id', 'occurred_at'])
        .expression((eb) =>
          eb
            .selectFrom('redeemed')
            .select([
              sql<string>`${p.applicationId}::uuid`.as('application_id'),
              'id',
              sql<string>`${p.externalOrderId}::varchar`.as('external_order_id'),
              sql<string | null>`${p.storeId}::varchar`.as('store_id'),
              sql<string | null>`${p.operatorId}::varchar`.as('operator_id'),
              sql<Date>`${p.occurredAt}::timestamptz`.as('occurred_at'),
            ]),
        )
        .returning(['id', 'external_order_id', 'store_id', 'operator_id', 'occurred_at', 'status', 'created_at']),
    )
    .selectFrom('idempotency_lock')
    .leftJoin(
      (eb) =>
        eb
          .selectFrom(['redeemed', 'redemption'])
          .selectAll('redeemed')
          .select([
            'redemption.id as redemptionId',
            'redemption.external_order_id as externalOrderId',
            'redemption.store_id as storeId',
            'redemption.operator_id as operatorId',
            'redemption.occurred_at as occurredAt',
            'redemption.status as redemptionStatus',
            'redemption.created_at as createdAt',
          ])
          .as('done'),
      (join) => join.onTrue(),
    )
    .select(['idempotency_lock.held as claimHeld', claimedKey.as('claimed')])
    .selectAll('done'),
);

/** The claim's outcome, and the redeemed voucher with its redemption when one was redeemed. */
export interface Redeemed {
  claimHeld: boolean;
  claimed: boolean;
  redeemed?: { voucher: VoucherViewSource; redemption: RedemptionViewSource };
}

/** The statement's row split in its parts: its redeemed columns are all null, or all present. */
function redeemedOf(row: RowOf<(typeof REDEEM)['qr_token']>): Redeemed {
  const { claimHeld, claimed } = row;
  if (row.id === null || row.redemptionId === null) return { claimHeld, claimed };
  const redemption = {
    id: row.redemptionId,
    voucherId: row.id,
    externalOrderId: row.externalOrderId!,
    storeId: row.storeId,
    operatorId: row.operatorId,
    occurredAt: row.occurredAt!,
    status: row.redemptionStatus!,
    createdAt: row.createdAt!,
  };
  const voucher = {
    id: row.id,
    templateId: row.templateId!,
    status: row.status!,
    recipientUserId: row.recipientUserId!,
    externalIssueId: row.externalIssueId,
    validFrom: row.validFrom!,
    validTo: row.validTo!,
    issuedAt: row.issuedAt!,
    redeemedAt: row.redeemedAt,
  };
  return { claimHeld, claimed, redeemed: { voucher, redemption } };
}

/** A redemption as the reversal reads and shows it. */
export type RedemptionRow = RedemptionViewSource & { applicationId: string };

/** The owner of `redemptions` and `reversals`: a voucher's redemption, and the reversal that undoes it. */
@Injectable()
export class RedemptionsStore {
  constructor(private readonly database: Database) {}

  /** Claims the key and redeems the voucher the credential names, in one statement. */
  async redeem(
    on: SqlTarget,
    applicationId: string,
    key: CredentialKey,
    facts: RedemptionFacts,
    claim: ClaimValues,
  ): Promise<Redeemed> {
    const row = await REDEEM[key.type].first(on, {
      ...claim,
      ...facts,
      applicationId,
      credentialHash: key.hash,
    });
    return redeemedOf(row!);
  }

  /** The application's redemption with its reversal, if any; null when it is not the application's. */
  async find(
    applicationId: string,
    redemptionId: string,
  ): Promise<{ redemption: RedemptionViewSource; reversal: ReversalViewSource | null } | null> {
    const redemption = await executeFirst(
      this.database,
      db
        .selectFrom('redemptions')
        .select(REDEMPTION_VIEW)
        .where('id', '=', redemptionId)
        .where('application_id', '=', applicationId),
    );
    if (!redemption) return null;
    const reversal = await executeFirst(
      this.database,
      db.selectFrom('reversals').select(REVERSAL_VIEW).where('redemption_id', '=', redemptionId),
    );
    return { redemption, reversal: reversal ?? null };
  }

  /** The application's redemption with its row locked for the rest of the transaction. */
  async lock(on: SqlTarget, applicationId: string, redemptionId: string): Promise<RedemptionRow | undefined> {
    return executeFirst(
      on,
      db
        .selectFrom('redemptions')
        .select([...REDEMPTION_VIEW, 'application_id as applicationId'])
        .where('id', '=', redemptionId)
        .where('application_id', '=', applicationId)
        .forUpdate(),
    );
  }

  /** Marks the redemption reversed and records why; the caller holds its row lock. Returns both as they are now. */
  async reverse(
    on: SqlTarget,
    redemption: RedemptionRow,
    reason: string | null,
    operatorId: string | null,
  ): Promise<{ redemption: RedemptionViewSource; reversal: ReversalViewSource }> {
    const { rows } = await execute(
      on,
      db
        .updateTable('redemptions')
        .set({ status: 'reversed', updated_at: sql`now()` })
        .where('id', '=', redemption.id)
        .returning(REDEMPTION_VIEW),
    );
    const reversal = await executeFirst(
      on,
      db
        .insertInto('reversals')
        .values({
          application_id: redemption.applicationId,
          redemption_id: redemption.id,
          reason,
          operator_id: operatorId,
        })
        .returning(REVERSAL_VIEW),
    );
    return { redemption: rows[0], reversal: reversal! };
  }
}
