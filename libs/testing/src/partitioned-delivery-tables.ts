/**
 * The statement that turns the empty `updates`, `webhook_deliveries` and `webhook_delivery_attempts`
 * of a freshly migrated bot database into the tables partitioned by day of created_at that the release
 * after the one adding `delivery_created_at` is to leave (docs/operations.md, "Growth of the delivery
 * tables"): every unique key holds the partition key, the attempts reference their delivery by
 * (id, created_at), and one partition per UTC day from `updatesDaysBack` (the Updates) or
 * `deliveriesDaysBack` (deliveries and attempts) days ago to `daysAhead` days ahead: the days the
 * retentions keep and the days created ahead.
 * For the specs that run the statements on that shape and the bench's growth rows on it; the
 * release's own migration converts populated tables.
 */
export function partitionDeliveryTablesByDay(days: {
  updatesDaysBack: number;
  deliveriesDaysBack: number;
  daysAhead: number;
}): string {
  return `
  ALTER TABLE webhook_delivery_attempts RENAME TO attempts_flat;
  ALTER TABLE webhook_deliveries RENAME TO deliveries_flat;
  ALTER TABLE updates RENAME TO updates_flat;

  CREATE TABLE updates (LIKE updates_flat INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
    PARTITION BY RANGE (created_at);
  ALTER TABLE updates ADD PRIMARY KEY (update_seq, created_at), ADD UNIQUE (update_id, created_at),
    ADD FOREIGN KEY (bot_id) REFERENCES bots (id) ON DELETE CASCADE;
  ALTER SEQUENCE updates_update_seq_seq OWNED BY updates.update_seq;

  CREATE TABLE webhook_deliveries (LIKE deliveries_flat INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
    PARTITION BY RANGE (created_at);
  ALTER TABLE webhook_deliveries ADD PRIMARY KEY (id, created_at), ADD UNIQUE (update_id, created_at),
    ADD FOREIGN KEY (bot_id) REFERENCES bots (id) ON DELETE CASCADE;

  CREATE TABLE webhook_delivery_attempts
    (LIKE attempts_flat INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING IDENTITY)
    PARTITION BY RANGE (delivery_created_at);
  ALTER TABLE webhook_delivery_attempts ALTER COLUMN delivery_created_at SET NOT NULL,
    ADD PRIMARY KEY (id, delivery_created_at),
    ADD UNIQUE (delivery_id, delivery_created_at, series, attempt),
    ADD FOREIGN KEY (delivery_id, delivery_created_at) REFERENCES webhook_deliveries (id, created_at) ON DELETE CASCADE;

  -- Every index that is not unique (the scans of getUpdates, the sweeper, the console, the purges),
  -- made again on the partitioned table under its name.
  CREATE TEMPORARY TABLE flat_indexes ON COMMIT DROP AS
    SELECT i.indexdef, i.tablename FROM pg_indexes i JOIN pg_index x ON x.indexrelid = format('%I.%I', i.schemaname, i.indexname)::regclass
     WHERE i.tablename IN ('updates_flat', 'deliveries_flat', 'attempts_flat') AND NOT x.indisunique;
  DROP TABLE attempts_flat, deliveries_flat, updates_flat;
  DO $$
  DECLARE
    flat record;
  BEGIN
    FOR flat IN SELECT indexdef, tablename FROM flat_indexes LOOP
      EXECUTE replace(flat.indexdef, ' ON public.' || flat.tablename || ' ',
                      ' ON public.' || CASE flat.tablename WHEN 'updates_flat' THEN 'updates'
                                                           WHEN 'deliveries_flat' THEN 'webhook_deliveries'
                                                           ELSE 'webhook_delivery_attempts' END || ' ');
    END LOOP;
  END $$;

  DO $$
  DECLARE
    day date;
  BEGIN
    FOR day IN SELECT generate_series(current_date - ${days.updatesDaysBack}, current_date + ${days.daysAhead},
                                      interval '1 day')::date LOOP
      EXECUTE format('CREATE TABLE %I PARTITION OF updates FOR VALUES FROM (%L) TO (%L)',
                     'updates_' || to_char(day, 'YYYYMMDD'), day, day + 1);
    END LOOP;
    FOR day IN SELECT generate_series(current_date - ${days.deliveriesDaysBack}, current_date + ${days.daysAhead},
                                      interval '1 day')::date LOOP
      EXECUTE format('CREATE TABLE %I PARTITION OF webhook_deliveries FOR VALUES FROM (%L) TO (%L)',
                     'webhook_deliveries_' || to_char(day, 'YYYYMMDD'), day, day + 1);
      EXECUTE format('CREATE TABLE %I PARTITION OF webhook_delivery_attempts FOR VALUES FROM (%L) TO (%L)',
                     'webhook_delivery_attempts_' || to_char(day, 'YYYYMMDD'), day, day + 1);
    END LOOP;
  END $$;`;
}
