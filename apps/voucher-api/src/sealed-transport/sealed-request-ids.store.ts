import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { namedStatement, runNamed } from '@app/platform';
import { DataSource } from 'typeorm';

/** How many expired ids one admission removes: enough to outpace arrivals, small enough to stay cheap. */
export const PURGE_BATCH = 32;
/**
 * How long an id outlives its window. Freshness and the purge read the same clock, the database's, but
 * each statement reads it when it starts: the grace outlasts any one admission, so a purge that starts
 * after it never removes an id that admission has just judged fresh.
 */
export const PURGE_GRACE_SECONDS = 60;

const sealIdSeen = namedStatement('sealed_request_ids_seen', `SELECT 1 FROM sealed_request_ids WHERE seal_id = $1`);

/**
 * Records an id if its seal is fresh on the database's clock and the id is new, and in the same round
 * trip removes a batch of ids past their window on that clock. Every replica therefore judges a seal
 * and forgets its id by one clock, so replicas whose own clocks drift apart open no replay window.
 * SKIP LOCKED lets concurrent admissions each take other rows, so the purge never makes them queue, and
 * no timer per replica is needed to keep the table bounded by the traffic of one freshness window.
 */
const admitSealId = namedStatement(
  'sealed_request_ids_admit',
  `WITH purged AS (
     DELETE FROM sealed_request_ids WHERE seal_id IN (
       SELECT seal_id FROM sealed_request_ids
       WHERE expires_at < now() - make_interval(secs => ${PURGE_GRACE_SECONDS})
       ORDER BY expires_at LIMIT ${PURGE_BATCH} FOR UPDATE SKIP LOCKED)
   ),
   fresh AS (
     SELECT to_timestamp($2::double precision) + make_interval(secs => $3::double precision) AS expires_at
     WHERE abs(extract(epoch FROM now()) - $2::double precision) <= $3::double precision
   ),
   admitted AS (
     INSERT INTO sealed_request_ids (seal_id, expires_at) SELECT $1, expires_at FROM fresh
     ON CONFLICT (seal_id) DO NOTHING RETURNING seal_id
   )
   SELECT EXISTS (SELECT 1 FROM fresh) AS fresh, EXISTS (SELECT 1 FROM admitted) AS admitted,
          floor(extract(epoch FROM now()))::bigint AS now_seconds`,
);

export interface SealAdmission {
  /** Whether the seal's `iat` lies within its window on the database's clock. */
  fresh: boolean;
  /** Whether its id was new and is now recorded; false when it was fresh and seen before. */
  admitted: boolean;
  /** The database's clock, in seconds since the epoch, for the refusal of a seal that is not fresh. */
  nowSeconds: number;
}

/** The owner of `sealed_request_ids`: the seal ids seen within their freshness window. */
@Injectable()
export class SealedRequestIdsStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Whether the id is recorded already (read only). */
  async seen(sealId: string): Promise<boolean> {
    const { rowCount } = await runNamed(this.dataSource, sealIdSeen, [sealId]);
    return rowCount === 1;
  }

  /** Records the id of a seal made at `iatSeconds` until its window of `maxAgeSeconds` has passed, if fresh and new. */
  async admit(sealId: string, iatSeconds: number, maxAgeSeconds: number): Promise<SealAdmission> {
    const { rows } = await runNamed<{ fresh: boolean; admitted: boolean; now_seconds: string }>(
      this.dataSource,
      admitSealId,
      [sealId, iatSeconds, maxAgeSeconds],
    );
    return { fresh: rows[0].fresh, admitted: rows[0].admitted, nowSeconds: Number(rows[0].now_seconds) };
  }
}
