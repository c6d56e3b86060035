import { Injectable } from '@nestjs/common';
import { Database, execute, executeAll, executeFirst, RowOf, SqlTarget } from '@app/platform';
import { ExpressionBuilder, sql } from 'kysely';
import { db, prepared, VoucherDB } from '../database/query';
import type { VoucherPermission } from '../applications/runtime-route.options';

/** The token and the application it is bound to, in one indexed look-up by the token's hash. */
const TOKEN_BY_HASH = prepared('app_token_by_hash', (db, p: { tokenHash: string }) =>
  db
    .selectFrom('app_tokens as t')
    .innerJoin('applications as a', 'a.id', 't.application_id')
    .select([
      't.id as token_id',
      't.token_hash',
      't.name as token_name',
      't.prefix',
      (eb) => eb.ref('t.permissions').$castTo<VoucherPermission[]>().as('permissions'),
      't.expires_at',
      't.revoked_at',
      sql<boolean>`(t.expires_at IS NOT NULL AND t.expires_at <= now())`.as('expired'),
      'a.id as application_id',
      'a.name',
      'a.description',
      'a.status',
      'a.allowed_origins',
      // As stored: features written before a flag existed lack its key.
      (eb) => eb.ref('a.features').$castTo<{ vouchers?: boolean } | null>().as('features'),
      'a.created_at',
      'a.updated_at',
    ])
    .where('t.token_hash', '=', p.tokenHash),
);

/** A token with the application it is bound to, as one runtime call needs them. */
export type TokenWithApplication = RowOf<typeof TOKEN_BY_HASH>;

/** The columns of a token, named as its view reads them. */
function tokenColumns(eb: ExpressionBuilder<VoucherDB, 'app_tokens'>) {
  return [
    'id',
    'application_id as applicationId',
    'name',
    'token_hash as tokenHash',
    'prefix',
    eb.ref('permissions').$castTo<VoucherPermission[]>().as('permissions'),
    'expires_at as expiresAt',
    'last_used_at as lastUsedAt',
    'revoked_at as revokedAt',
    'created_at as createdAt',
  ] as const;
}

function selectTokens() {
  return db.selectFrom('app_tokens').select(tokenColumns);
}

/** A token as the console manages it. */
export type AppTokenRecord = RowOf<ReturnType<typeof selectTokens>>;

export type NewAppToken = Pick<
  AppTokenRecord,
  'applicationId' | 'name' | 'tokenHash' | 'prefix' | 'permissions' | 'expiresAt'
>;

/** The owner of `app_tokens`: the runtime's look-up by hash and the console's token management. */
@Injectable()
export class AppTokensStore {
  constructor(private readonly database: Database) {}

  findByHash(tokenHash: string): Promise<TokenWithApplication | undefined> {
    return TOKEN_BY_HASH.first(this.database, { tokenHash });
  }

  /** Informational, so at most one write a minute per token; never on the caller's transaction. */
  async recordUse(tokenId: string): Promise<void> {
    await execute(
      this.database,
      db
        .updateTable('app_tokens')
        .set({ last_used_at: sql`now()` })
        .where('id', '=', tokenId)
        .where((eb) =>
          eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', sql<Date>`now() - interval '1 minute'`)]),
        ),
    );
  }

  list(applicationId: string): Promise<AppTokenRecord[]> {
    return executeAll(
      this.database,
      selectTokens().where('application_id', '=', applicationId).orderBy('created_at').orderBy('id'),
    );
  }

  async insert(on: SqlTarget, fields: NewAppToken): Promise<AppTokenRecord> {
    const inserted = await executeFirst(
      on,
      db
        .insertInto('app_tokens')
        .values({
          application_id: fields.applicationId,
          name: fields.name,
          token_hash: fields.tokenHash,
          prefix: fields.prefix,
          permissions: fields.permissions,
          expires_at: fields.expiresAt,
        })
        .returning(tokenColumns),
    );
    return inserted!;
  }

  /** Sets revoked_at once (a second revoke keeps the first timestamp); undefined when no such token of the application. */
  async revoke(on: SqlTarget, applicationId: string, tokenId: string): Promise<AppTokenRecord | undefined> {
    await execute(
      on,
      db
        .updateTable('app_tokens')
        .set({ revoked_at: sql`now()` })
        .where('id', '=', tokenId)
        .where('application_id', '=', applicationId)
        .where('revoked_at', 'is', null),
    );
    return executeFirst(on, selectTokens().where('id', '=', tokenId).where('application_id', '=', applicationId));
  }
}
