import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { claimCtes } from '@app/idempotency';
import { runNamed } from '@app/platform';
import { DataSource, EntityManager } from 'typeorm';
import type { VoucherViewSource } from '../vouchers/voucher.view';
import { CredentialKey, perCredentialType, redeemedVoucherCte } from '../vouchers/vouchers.store';
import { Redemption, RedemptionStatus } from './entities/redemption.entity';
import { Reversal } from './entities/reversal.entity';

/** The claim's outcome, and the redeemed voucher with its redemption (all null when nothing was redeemed). */
export interface RedeemedRow extends VoucherViewSource {
  claimHeld: boolean;
  claimed: boolean;
  redemptionId: string;
  externalOrderId: string;
  storeId: string | null;
  operatorId: string | null;
  occurredAt: Date;
  redemptionStatus: RedemptionStatus;
  createdAt: Date;
}

/**
 * Claims the idempotency key, consumes the voucher and records its redemption in ONE statement; the
 * voucher is touched only when the key was claimed. No redeemed row back means the key was not
 * claimed, or the voucher was missing or not redeemable, and nothing but the claim was written.
 * $1 application id, $2 credential hash, $3 external order id, $4 store id, $5 operator id,
 * $6 occurred at, $7… the claim's parameters.
 */
const REDEEM = perCredentialType(
  'redemption_redeem',
  (voucherId) => `
  WITH ${claimCtes(7)},
       ${redeemedVoucherCte(voucherId, 'idempotency_claim')},
       redemption AS (
         INSERT INTO redemptions (application_id, voucher_id, external_order_id, store_id, operator_id, occurred_at)
         SELECT $1::uuid, id, $3::varchar, $4::varchar, $5::varchar, $6::timestamptz FROM redeemed
         RETURNING id, external_order_id, store_id, operator_id, occurred_at, status, created_at)
  SELECT idempotency_lock.held AS "claimHeld", EXISTS (SELECT 1 FROM idempotency_claim) AS claimed, done.*
    FROM idempotency_lock
    LEFT JOIN (
      SELECT redeemed.*, redemption.id AS "redemptionId", redemption.external_order_id AS "externalOrderId",
             redemption.store_id AS "storeId", redemption.operator_id AS "operatorId",
             redemption.occurred_at AS "occurredAt", redemption.status AS "redemptionStatus",
             redemption.created_at AS "createdAt"
        FROM redeemed, redemption) done ON true`,
);

export interface RedemptionFacts {
  externalOrderId: string;
  storeId: string | null;
  operatorId: string | null;
  occurredAt: Date;
}

/** The owner of `redemptions` and `reversals`: a voucher's redemption, and the reversal that undoes it. */
@Injectable()
export class RedemptionsStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Claims the key (its parameters last) and redeems the voucher the credential names, in one statement. */
  async redeem(
    manager: EntityManager,
    applicationId: string,
    key: CredentialKey,
    facts: RedemptionFacts,
    claimParameters: unknown[],
  ): Promise<RedeemedRow> {
    const { rows } = await runNamed<RedeemedRow>(manager, REDEEM[key.type], [
      applicationId,
      key.hash,
      facts.externalOrderId,
      facts.storeId,
      facts.operatorId,
      facts.occurredAt,
      ...claimParameters,
    ]);
    return rows[0];
  }

  /** The application's redemption with its reversal, if any; null when it is not the application's. */
  async find(
    applicationId: string,
    redemptionId: string,
  ): Promise<{ redemption: Redemption; reversal: Reversal | null } | null> {
    const redemption = await this.dataSource.manager.findOneBy(Redemption, { id: redemptionId, applicationId });
    if (!redemption) return null;
    return { redemption, reversal: await this.dataSource.manager.findOneBy(Reversal, { redemptionId }) };
  }

  /** The application's redemption with its row locked for the rest of the transaction. */
  lock(manager: EntityManager, applicationId: string, redemptionId: string): Promise<Redemption | null> {
    return manager.findOne(Redemption, {
      where: { id: redemptionId, applicationId },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /** Marks the redemption reversed and records why; the caller holds its row lock. */
  async reverse(
    manager: EntityManager,
    redemption: Redemption,
    reason: string | null,
    operatorId: string | null,
  ): Promise<Reversal> {
    redemption.status = 'reversed';
    await manager.save(redemption);
    return manager.save(
      manager.create(Reversal, {
        applicationId: redemption.applicationId,
        redemptionId: redemption.id,
        reason,
        operatorId,
      }),
    );
  }
}
