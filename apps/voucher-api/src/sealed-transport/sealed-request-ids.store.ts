import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { namedStatement, runNamed } from '@app/platform';
import { DataSource } from 'typeorm';

/** How many expired ids one admission removes: enough to outpace arrivals, small enough to stay cheap. */
export const PURGE_BATCH = 32;

/**
 * Records an id unless it is already there, and in the same round trip removes a batch of expired ids.
 * SKIP LOCKED lets concurrent admissions each take other rows, so the purge never makes them queue, and
 * no timer per replica is needed to keep the table bounded by the traffic of one freshness window.
 */
const admitSealId = namedStatement(
  'sealed_request_ids_admit',
  `WITH purged AS (
     DELETE FROM sealed_request_ids WHERE seal_id IN (
       SELECT seal_id FROM sealed_request_ids WHERE expires_at < $3
       ORDER BY expires_at LIMIT ${PURGE_BATCH} FOR UPDATE SKIP LOCKED)
   )
   INSERT INTO sealed_request_ids (seal_id, expires_at) VALUES ($1, $2)
   ON CONFLICT (seal_id) DO NOTHING RETURNING seal_id`,
);

/** The owner of `sealed_request_ids`: the seal ids seen within their freshness window. */
@Injectable()
export class SealedRequestIdsStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Whether the id is new (and now recorded until `expiresAt`); false when it was seen before. */
  async admit(sealId: string, expiresAt: Date, now: Date): Promise<boolean> {
    const { rowCount } = await runNamed(this.dataSource, admitSealId, [sealId, expiresAt, now]);
    return rowCount === 1;
  }
}
