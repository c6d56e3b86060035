/**
 * The three delivery tables as the partitioning migration converts them, in the order it must (a
 * delivery references its Update's bot only, an attempt its delivery): the keys it builds concurrently
 * first and the catalog changes of each one's swap. The names of the legacy partition's indexes take
 * `_legacy` so that the parent's can keep today's.
 */
export interface FlatTable {
  name: 'updates' | 'webhook_deliveries' | 'webhook_delivery_attempts';
  partitionKey: string;
  /** Unique indexes holding the partition key, built CONCURRENTLY before the swap makes them keys. */
  keys: { index: string; columns: string }[];
  /** The swap's statements, in order, for a cutover (ISO 8601, a UTC midnight). */
  swap(cutover: string): string[];
}

/**
 * A swap takes every lock it needs first, in the order a writer takes them (an Update, then its delivery,
 * then the attempt): taken as the statements come (the attempts renamed, then the deliveries referenced),
 * they would deadlock with a writer holding the deliveries and waiting for the attempts.
 */
const LOCK_AS_WRITERS_DO = (tables: string) => `LOCK TABLE ${tables}`;

const renameIndexes = (table: string, suffixes: string[]) =>
  suffixes.map((suffix) => `ALTER INDEX ${table}_${suffix} RENAME TO ${table}_legacy_${suffix}`);

const attachLegacy = (table: string, cutover: string) =>
  `ALTER TABLE ${table} ATTACH PARTITION ${table}_legacy FOR VALUES FROM (MINVALUE) TO ('${cutover}')`;

const UPDATES: FlatTable = {
  name: 'updates',
  partitionKey: 'created_at',
  keys: [
    { index: 'updates_seq_day', columns: 'update_seq, created_at' },
    { index: 'updates_id_day', columns: 'update_id, created_at' },
  ],
  swap: (cutover) => [
    `-- squawk-ignore renaming-table -- the partitioned parent takes the name back in the same transaction
    ALTER TABLE updates RENAME TO updates_legacy`,
    ...renameIndexes('updates', ['created', 'pending']),
    `ALTER TABLE updates_legacy DROP CONSTRAINT updates_pkey, DROP CONSTRAINT updates_update_id_key`,
    `ALTER TABLE updates_legacy ADD CONSTRAINT updates_legacy_pkey PRIMARY KEY USING INDEX updates_seq_day,
       ADD CONSTRAINT updates_legacy_update_id_created_at_key UNIQUE USING INDEX updates_id_day`,
    `CREATE TABLE updates (LIKE updates_legacy INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (created_at)`,
    `ALTER TABLE updates DROP CONSTRAINT updates_before_cutover`,
    // The sequence goes on with the parent, not with the legacy partition once that is dropped.
    `ALTER SEQUENCE updates_update_seq_seq OWNED BY updates.update_seq`,
    `-- squawk-ignore adding-serial-primary-key-field -- the parent has no partition yet: there is nothing to build or lock
    ALTER TABLE updates ADD CONSTRAINT updates_pkey PRIMARY KEY (update_seq, created_at),
       ADD CONSTRAINT updates_update_id_created_at_key UNIQUE (update_id, created_at),
       ADD CONSTRAINT updates_bot_id_fkey FOREIGN KEY (bot_id) REFERENCES bots (id) ON DELETE CASCADE`,
    `CREATE INDEX updates_created ON updates (created_at)`,
    `CREATE INDEX updates_pending ON updates (bot_id, update_seq) WHERE NOT acknowledged`,
    attachLegacy('updates', cutover),
  ],
};

const DELIVERY_INDEXES = ['bot', 'auto_redrivable', 'bot_dead', 'dead_letters', 'due', 'finished'];

const DELIVERIES: FlatTable = {
  name: 'webhook_deliveries',
  partitionKey: 'created_at',
  keys: [
    { index: 'webhook_deliveries_id_day', columns: 'id, created_at' },
    { index: 'webhook_deliveries_update_day', columns: 'update_id, created_at' },
  ],
  swap: (cutover) => [
    LOCK_AS_WRITERS_DO('webhook_deliveries, webhook_delivery_attempts IN ACCESS EXCLUSIVE MODE'),
    `-- squawk-ignore renaming-table -- the partitioned parent takes the name back in the same transaction
    ALTER TABLE webhook_deliveries RENAME TO webhook_deliveries_legacy`,
    ...renameIndexes('webhook_deliveries', DELIVERY_INDEXES),
    // The attempts reference the deliveries' key by day from now on: added NOT VALID here (new rows are
    // checked from the commit on), validated before the attempts' own swap.
    `ALTER TABLE webhook_delivery_attempts DROP CONSTRAINT webhook_delivery_attempts_delivery_id_fkey`,
    `ALTER TABLE webhook_deliveries_legacy DROP CONSTRAINT webhook_deliveries_pkey,
       DROP CONSTRAINT webhook_deliveries_update_id_key`,
    `ALTER TABLE webhook_deliveries_legacy ADD CONSTRAINT webhook_deliveries_legacy_pkey PRIMARY KEY USING INDEX webhook_deliveries_id_day,
       ADD CONSTRAINT webhook_deliveries_legacy_update_id_created_at_key UNIQUE USING INDEX webhook_deliveries_update_day`,
    `CREATE TABLE webhook_deliveries (LIKE webhook_deliveries_legacy INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
       PARTITION BY RANGE (created_at)`,
    `ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_before_cutover`,
    `-- squawk-ignore adding-serial-primary-key-field -- the parent has no partition yet: there is nothing to build or lock
    ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id, created_at),
       ADD CONSTRAINT webhook_deliveries_update_id_created_at_key UNIQUE (update_id, created_at),
       ADD CONSTRAINT webhook_deliveries_bot_id_fkey FOREIGN KEY (bot_id) REFERENCES bots (id) ON DELETE CASCADE`,
    `CREATE INDEX webhook_deliveries_bot ON webhook_deliveries (bot_id, update_seq DESC)`,
    `CREATE INDEX webhook_deliveries_auto_redrivable ON webhook_deliveries (bot_id, update_seq)
       WHERE status = 'dead_letter' AND trigger <> 'auto'`,
    `CREATE INDEX webhook_deliveries_bot_dead ON webhook_deliveries (bot_id, dead_letter_at) WHERE status = 'dead_letter'`,
    `CREATE INDEX webhook_deliveries_dead_letters ON webhook_deliveries (dead_letter_at DESC, id DESC)
       WHERE status = 'dead_letter'`,
    `CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status IN ('pending', 'retrying')`,
    `CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (updated_at) WHERE status IN ('succeeded', 'dead_letter')`,
    attachLegacy('webhook_deliveries', cutover),
    `ALTER TABLE webhook_delivery_attempts ADD CONSTRAINT webhook_delivery_attempts_delivery_id_delivery_created_at_fkey
       FOREIGN KEY (delivery_id, delivery_created_at) REFERENCES webhook_deliveries (id, created_at) ON DELETE CASCADE NOT VALID`,
  ],
};

const ATTEMPTS: FlatTable = {
  name: 'webhook_delivery_attempts',
  partitionKey: 'delivery_created_at',
  keys: [
    { index: 'webhook_delivery_attempts_id_day', columns: 'id, delivery_created_at' },
    { index: 'webhook_delivery_attempts_series_day', columns: 'delivery_id, delivery_created_at, series, attempt' },
  ],
  swap: (cutover) => [
    LOCK_AS_WRITERS_DO('webhook_deliveries IN SHARE ROW EXCLUSIVE MODE'),
    LOCK_AS_WRITERS_DO('webhook_delivery_attempts IN ACCESS EXCLUSIVE MODE'),
    `-- squawk-ignore renaming-table -- the partitioned parent takes the name back in the same transaction
    ALTER TABLE webhook_delivery_attempts RENAME TO webhook_delivery_attempts_legacy`,
    // An identity column cannot move to a partitioned parent that has none: the ids go on from a plain
    // sequence of the parent, starting where the identity stopped (the rename's lock holds every writer).
    `DO $$
     DECLARE
       next_id bigint;
     BEGIN
       SELECT last_value + 1 INTO next_id FROM webhook_delivery_attempts_id_seq;
       ALTER TABLE webhook_delivery_attempts_legacy ALTER COLUMN id DROP IDENTITY;
       EXECUTE format('CREATE SEQUENCE webhook_delivery_attempts_id_seq START %s', next_id);
     END $$`,
    `ALTER TABLE webhook_delivery_attempts_legacy DROP CONSTRAINT webhook_delivery_attempts_pkey,
       DROP CONSTRAINT webhook_delivery_attempts_delivery_id_series_attempt_key`,
    `-- squawk-ignore adding-not-nullable-field -- the validated check webhook_delivery_attempts_day_known spares the scan
    ALTER TABLE webhook_delivery_attempts_legacy ALTER COLUMN delivery_created_at SET NOT NULL`,
    `ALTER TABLE webhook_delivery_attempts_legacy
       ADD CONSTRAINT webhook_delivery_attempts_legacy_pkey PRIMARY KEY USING INDEX webhook_delivery_attempts_id_day,
       ADD CONSTRAINT webhook_delivery_attempts_legacy_attempt_key UNIQUE USING INDEX webhook_delivery_attempts_series_day`,
    `CREATE TABLE webhook_delivery_attempts (LIKE webhook_delivery_attempts_legacy INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
       PARTITION BY RANGE (delivery_created_at)`,
    `ALTER TABLE webhook_delivery_attempts DROP CONSTRAINT webhook_delivery_attempts_before_cutover,
       DROP CONSTRAINT webhook_delivery_attempts_day_known`,
    `ALTER TABLE webhook_delivery_attempts ALTER COLUMN id SET DEFAULT nextval('webhook_delivery_attempts_id_seq')`,
    `ALTER SEQUENCE webhook_delivery_attempts_id_seq OWNED BY webhook_delivery_attempts.id`,
    `-- squawk-ignore adding-serial-primary-key-field -- the parent has no partition yet: there is nothing to build or lock
    ALTER TABLE webhook_delivery_attempts ADD CONSTRAINT webhook_delivery_attempts_pkey PRIMARY KEY (id, delivery_created_at),
       ADD CONSTRAINT webhook_delivery_attempts_attempt_key UNIQUE (delivery_id, delivery_created_at, series, attempt),
       ADD CONSTRAINT webhook_delivery_attempts_delivery_id_delivery_created_at_fkey
         FOREIGN KEY (delivery_id, delivery_created_at) REFERENCES webhook_deliveries (id, created_at) ON DELETE CASCADE`,
    attachLegacy('webhook_delivery_attempts', cutover),
  ],
};

export const DELIVERY_TABLES: FlatTable[] = [UPDATES, DELIVERIES, ATTEMPTS];
