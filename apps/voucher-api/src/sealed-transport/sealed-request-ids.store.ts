import { Injectable } from '@nestjs/common';
import { Database } from '@app/platform';
import { sql } from 'kysely';
import { prepared } from '../database/query';

/** How many expired ids one admission removes: enough to outpace arrivals, small enough to stay cheap. */
export const PURGE_BATCH = 32;
/**
 * How long an id outlives its window. Freshness and the purge read the same clock, the database's, but
 * each statement reads it when it starts: the grace outlasts any one admission, so a purge that starts
 * after it never removes an id that admission has just judged fresh.
 */
export const PURGE_GRACE_SECONDS = 60;

const sealIdSeen = prepared('sealed_request_ids_seen', (db, p: { sealId: string }) =>
  db.selectFrom('sealed_request_ids').select(sql.lit(1).as('one')).where('seal_id', '=', p.sealId),
);

/** A seal's id and the window it is fresh in, by name. */
interface AdmitParameters {
  sealId: string;
  iatSeconds: number;
  maxAgeSeconds: number;
}

/**
 * Records an id if its seal is fresh on the database's clock and the id is new, and in the same round
 * trip removes a batch of ids past their window on that clock. Every replica therefore judges a seal
 * and forgets its id by one clock, so replicas whose own clocks drift apart open no replay window.
 * SKIP LOCKED lets concurrent admissions each take other rows, so the purge never makes them queue, and
 * no timer per replica is needed to keep the table bounded by the traffic of one freshness window.
 */
const admitSealId = prepared('sealed_request_ids_admit', (db, p: AdmitParameters) =>
  db
    .with('purged', (qb) =>
      qb.deleteFrom('sealed_request_ids').where('seal_id', 'in', (eb) =>
        eb
          .selectFrom('sealed_request_ids')
          .select('seal_id')
          .where('expires_at', '<', sql<Date>`now() - make_interval(secs => ${sql.lit(PURGE_GRACE_SECONDS)})`)
          .orderBy('expires_at')
          .limit(sql.lit(PURGE_BATCH))
          .forUpdate()
          .skipLocked(),
      ),
    )
    .with('fresh', (qb) =>
      qb
        .selectNoFrom(
          sql<Date>`to_timestamp(${p.iatSeconds}::double precision) + make_interval(secs => ${p.maxAgeSeconds}::double precision)`.as(
            'expires_at',
          ),
        )
        .where(
          sql<boolean>`abs(extract(epoch FROM now()) - ${p.iatSeconds}::double precision) <= ${p.maxAgeSeconds}::double precision`,
        ),
    )
    .with('admitted', (qb) =>
      qb
        .insertInto('sealed_request_ids')
        .columns(['seal_id', 'expires_at'])
        .expression((eb) => eb.selectFrom('fresh').select([sql<string>`${p.sealId}`.as('seal_id'), 'expires_at']))
        .onConflict((oc) => oc.column('seal_id').doNothing())
        .returning('seal_id'),
    )
    .selectNoFrom((eb) => [
      eb
        .exists(eb.selectFrom('fresh').select(sql.lit(1).as('one')))
        .$castTo<boolean>()
        .as('fresh'),
      eb
        .exists(eb.selectFrom('admitted').select(sql.lit(1).as('one')))
        .$castTo<boolean>()
        .as('admitted'),
      sql<string>`floor(extract(epoch FROM now()))::bigint`.as('now_seconds'),
    ]),
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
  constructor(private readonly database: Database) {}

  /** Whether the id is recorded already (read only). */
  async seen(sealId: string): Promise<boolean> {
    return (await sealIdSeen.first(this.database, { sealId })) !== undefined;
  }

  /** Records the id of a seal made at `iatSeconds` until its window of `maxAgeSeconds` has passed, if fresh and new. */
  async admit(sealId: string, iatSeconds: number, maxAgeSeconds: number): Promise<SealAdmission> {
    const row = (await admitSealId.first(this.database, { sealId, iatSeconds, maxAgeSeconds }))!;
    return { fresh: row.fresh, admitted: row.admitted, nowSeconds: Number(row.now_seconds) };
  }
}
