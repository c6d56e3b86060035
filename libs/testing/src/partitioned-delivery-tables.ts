/**
 * The statement that gives the empty `updates`, `webhook_deliveries` and `webhook_delivery_attempts` of a
 * freshly migrated bot database (partitioned by day since the migration PartitionDeliveryTables, with
 * everything before its cutover in one `<table>_legacy` partition) one partition per UTC day from
 * `updatesDaysBack` (the Updates) or `deliveriesDaysBack` (deliveries and attempts) days ago to
 * `daysAhead` days ahead: the days the retentions keep and the days created ahead, as a database that
 * has run the release for a month has them. For the specs that write rows of past days and the bench's
 * growth rows.
 */
export function partitionDeliveryTablesByDay(days: {
  updatesDaysBack: number;
  deliveriesDaysBack: number;
  daysAhead: number;
}): string {
  return `
  DO $$
  DECLARE
    parent text;
    partition text;
    day date;
    today date := (now() AT TIME ZONE 'UTC')::date;
  BEGIN
    FOREACH parent IN ARRAY ARRAY['webhook_delivery_attempts', 'webhook_deliveries', 'updates'] LOOP
      FOR partition IN SELECT inhrelid::regclass::text FROM pg_inherits WHERE inhparent = parent::regclass LOOP
        -- A partition of a table a foreign key references is detached before it can be dropped.
        EXECUTE format('ALTER TABLE %I DETACH PARTITION %s', parent, partition);
        EXECUTE format('DROP TABLE %s', partition);
      END LOOP;
    END LOOP;
    FOREACH parent IN ARRAY ARRAY['updates', 'webhook_deliveries', 'webhook_delivery_attempts'] LOOP
      FOR day IN SELECT generate_series(today - CASE parent WHEN 'updates' THEN ${days.updatesDaysBack}
                                                            ELSE ${days.deliveriesDaysBack} END,
                                        today + ${days.daysAhead}, interval '1 day')::date LOOP
        EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
                       parent || '_' || to_char(day, 'YYYYMMDD'), parent,
                       day::timestamp AT TIME ZONE 'UTC', (day + 1)::timestamp AT TIME ZONE 'UTC');
      END LOOP;
    END LOOP;
  END $$;`;
}

/** The names of the partitions a partitioned table has now, sorted. */
export async function partitionsOf(
  on: { query(sql: string, parameters?: unknown[]): Promise<unknown> },
  parent: string,
) {
  const rows = (await on.query(
    `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = $1::regclass ORDER BY 1`,
    [parent],
  )) as Array<{ relname: string }>;
  return rows.map((row) => row.relname);
}

/** A day partition's suffix (YYYYMMDD, UTC) `offset` days from today. */
export function partitionDay(offset: number): string {
  return new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');
}
