import { preparedFor, queryBuilder } from '@app/platform';
import type { DB } from './schema.generated';

/** The voucher database's typed compiler: statements are checked against the migrated schema (schema.generated.ts). */
export const db = queryBuilder<DB>();

/** A hot-path statement of the voucher database, compiled once and run by name (see PreparedQuery). */
export const prepared = preparedFor(db);

export type VoucherDB = DB;
