import { MigrationInterface, QueryRunner } from 'typeorm';
import { DELIVERY_TABLES, type FlatTable } from './partition-delivery-tables/delivery-tables';
import { flattenDeliveryTables } from './partition-delivery-tables/flatten';

/**
 * The second step of partitioning the delivery tables by day (docs/operations.md, "Growth of the
 * delivery tables"): `updates`, `webhook_deliveries` and `webhook_delivery_attempts`, populated and
 * written to by the previous release the whole time, become tables partitioned by day of created_at
 * (the attempts by their delivery's), each keeping its rows in a partition `<table>_legacy` for
 * everything before the cutover (the next UTC midnight at least an hour away) and one partition per
 * day from it. Nothing holds a lock for a scan:
 *
 * 1. attempts still without their delivery's day get it, in batches through the partial index;
 * 2. the keys with the partition key are built CONCURRENTLY;
 * 3. the checks that make the swap a catalog change (`created_at < cutover`, the attempts' day known)
 *    are added NOT VALID and validated, which blocks no writer;
 * 4. per table, one short transaction: rename to `<table>_legacy`, create the partitioned parent under
 *    the old name, give the legacy table the new keys built in 2, attach it for (MINVALUE) to the
 *    cutover (the validated checks spare the scan) and create the days from the cutover to a week ahead;
 * 5. between the deliveries' swap and the attempts', the attempts' reference to their delivery becomes
 *    (delivery_id, delivery_created_at), added NOT VALID and validated.
 *
 * Each step looks at what is there first, so a run that failed (a lock not granted in time, a killed
 * pod) is run again and goes on where it stopped.
 */
export class PartitionDeliveryTables1796500000000 implements MigrationInterface {
  name = 'PartitionDeliveryTables1796500000000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(CREATE_DELIVERY_DAYS_AHEAD);
    await giveEveryAttemptItsDeliveryDay(queryRunner);
    for (const table of DELIVERY_TABLES) {
      if (await isPartitioned(queryRunner, table.name)) continue;
      for (const key of table.keys) await buildConcurrently(queryRunner, table.name, key.index, key.columns);
      if (table.name === 'webhook_delivery_attempts') {
        await addValidatedCheck(
          queryRunner,
          table.name,
          'webhook_delivery_attempts_day_known',
          'delivery_created_at IS NOT NULL',
        );
        await referenceDeliveriesByDay(queryRunner);
      }
      try {
        await swap(queryRunner, table, await cutoverOf(queryRunner, table));
      } catch (error) {
        // Left in place, the check would refuse every write from the cutover on, until a run again.
        await queryRunner
          .query(`ALTER TABLE ${table.name} DROP CONSTRAINT IF EXISTS ${table.name}_before_cutover`)
          .catch(() => undefined);
        throw error;
      }
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await flattenDeliveryTables(queryRunner);
  }
}

async function isPartitioned(queryRunner: QueryRunner, table: string): Promise<boolean> {
  const [row] = await queryRunner.query(`SELECT relkind FROM pg_class WHERE oid = to_regclass($1)`, [table]);
  return row?.relkind === 'p';
}

/** Release N fills them every minute; what is left (recorded since its last run) is filled here. */
async function giveEveryAttemptItsDeliveryDay(queryRunner: QueryRunner): Promise<void> {
  if (await isPartitioned(queryRunner, 'webhook_delivery_attempts')) return;
  for (;;) {
    const [, filled] = await queryRunner.query(`
      UPDATE webhook_delivery_attempts a SET delivery_created_at = d.created_at
        FROM webhook_deliveries d
       WHERE a.id IN (SELECT id FROM webhook_delivery_attempts WHERE delivery_created_at IS NULL ORDER BY id LIMIT 5000)
         AND d.id = a.delivery_id`);
    if (filled === 0) return;
  }
}

async function buildConcurrently(queryRunner: QueryRunner, table: string, index: string, columns: string) {
  const [existing] = await queryRunner.query(
    `SELECT x.indisvalid AS valid FROM pg_index x WHERE x.indexrelid = to_regclass($1)`,
    [index],
  );
  if (existing?.valid) return;
  // A build that failed left an invalid index behind: it goes, and the build runs again.
  await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS ${index}`);
  await queryRunner.query(
    `-- squawk-ignore prefer-robust-stmts -- the DROP INDEX CONCURRENTLY IF EXISTS before the build makes a rerun safe
    CREATE UNIQUE INDEX CONCURRENTLY ${index} ON ${table} (${columns})`,
  );
}

/** A check added NOT VALID (an instant) and validated (a scan that blocks no writer). */
async function addValidatedCheck(queryRunner: QueryRunner, table: string, name: string, condition: string) {
  const [existing] = await queryRunner.query(
    `SELECT convalidated AS validated FROM pg_constraint WHERE conrelid = $1::regclass AND conname = $2`,
    [table, name],
  );
  if (!existing) {
    await queryRunner.query(`-- squawk-ignore prefer-robust-stmts -- run only after a look at pg_constraint finds it missing or not validated, so a rerun is safe
      ALTER TABLE ${table} ADD CONSTRAINT ${name} CHECK (${condition}) NOT VALID`);
  }
  if (!existing?.validated) {
    await queryRunner.query(`-- squawk-ignore prefer-robust-stmts -- run only after a look at pg_constraint finds it missing or not validated, so a rerun is safe
      ALTER TABLE ${table} VALIDATE CONSTRAINT ${name}`);
  }
}

/**
 * The attempts' reference to their delivery, once the deliveries are partitioned: (delivery_id,
 * delivery_created_at), the partitioned table's key. Swapped in the deliveries' transaction (see swap),
 * validated here, so that the attempts' own parent finds it valid and attaches it without a scan.
 */
async function referenceDeliveriesByDay(queryRunner: QueryRunner): Promise<void> {
  await queryRunner.query(
    `-- squawk-ignore prefer-robust-stmts -- validating a valid constraint again is a no-op, so a rerun is safe
    ALTER TABLE webhook_delivery_attempts VALIDATE CONSTRAINT webhook_delivery_attempts_delivery_id_delivery_created_at_fkey`,
  );
}

/**
 * The cutover: the next UTC midnight at least an hour away, so that the days are whole and the swap
 * has that hour at least to commit (the check refuses rows from then on in the table before it is a
 * partition). A check already there from an earlier run keeps its cutover while it is still an hour away.
 */
async function cutoverOf(queryRunner: QueryRunner, table: FlatTable): Promise<string> {
  const name = `${table.name}_before_cutover`;
  const [existing] = await queryRunner.query(
    `SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS cutover, at > now() + interval '1 hour' AS in_time
       FROM (SELECT substring(pg_get_constraintdef(oid) from '''([^'']+)''')::timestamptz AS at
               FROM pg_constraint WHERE conrelid = $1::regclass AND conname = $2) AS existing`,
    [table.name, name],
  );
  if (existing?.in_time) {
    await addValidatedCheck(queryRunner, table.name, name, `${table.partitionKey} < '${existing.cutover}'`);
    return existing.cutover;
  }
  if (existing) await queryRunner.query(`ALTER TABLE ${table.name} DROP CONSTRAINT ${name}`);
  const [{ cutover }] = await queryRunner.query(
    `SELECT to_char(date_trunc('day', (now() + interval '1 hour') AT TIME ZONE 'UTC') + interval '1 day',
                    'YYYY-MM-DD"T00:00:00Z"') AS cutover`,
  );
  await addValidatedCheck(queryRunner, table.name, name, `${table.partitionKey} < '${cutover}'`);
  return cutover;
}

/** The table becomes its partitioned self in one transaction of catalog changes (see the class). */
async function swap(queryRunner: QueryRunner, table: FlatTable, cutover: string): Promise<void> {
  await queryRunner.startTransaction();
  try {
    const [{ late }] = await queryRunner.query(`SELECT clock_timestamp() >= $1::timestamptz AS late`, [cutover]);
    if (late) throw new Error(`${table.name}: the cutover ${cutover} passed before the swap; run the migration again`);
    for (const statement of table.swap(cutover)) await queryRunner.query(statement);
    await queryRunner.query(`SELECT create_delivery_days_ahead(7)`);
    await queryRunner.commitTransaction();
  } catch (error) {
    await queryRunner.rollbackTransaction();
    throw error;
  }
}

/**
 * The day partitions from the first day none covers to `days_ahead` days after today (UTC), for each of
 * the three tables that is partitioned, answering how many it made; bot-api's periodic task
 * `delivery-days-ahead` calls it hourly. Each day is made as a table of its own and attached, which
 * locks the parent in SHARE UPDATE EXCLUSIVE mode only (CREATE TABLE … PARTITION OF would lock writers out).
 */
const CREATE_DELIVERY_DAYS_AHEAD = `
  CREATE OR REPLACE FUNCTION create_delivery_days_ahead(days_ahead integer) RETURNS integer
  LANGUAGE plpgsql AS $$
  DECLARE
    parent text;
    first_missing date;
    day date;
    partition text;
    created integer := 0;
  BEGIN
    FOREACH parent IN ARRAY ARRAY['updates', 'webhook_deliveries', 'webhook_delivery_attempts'] LOOP
      SELECT max((substring(pg_get_expr(c.relpartbound, c.oid) from 'TO \\(''([^'']+)''\\)')::timestamptz
                  AT TIME ZONE 'UTC')::date)
        INTO first_missing
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = to_regclass(parent);
      CONTINUE WHEN first_missing IS NULL;
      FOR day IN SELECT generate_series(first_missing, (now() AT TIME ZONE 'UTC')::date + days_ahead, interval '1 day')::date LOOP
        partition := parent || '_' || to_char(day, 'YYYYMMDD');
        EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', partition, parent);
        EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', parent, partition,
                       day::timestamp AT TIME ZONE 'UTC', (day + 1)::timestamp AT TIME ZONE 'UTC');
        created := created + 1;
      END LOOP;
    END LOOP;
    RETURN created;
  END $$`;
