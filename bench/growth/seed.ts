import type { Client } from 'pg';

/**
 * Bulk rows for the growth runs, written with generate_series straight into the schema the
 * services' migrations made (they are filler: no request of the bench reads them back, they only make
 * the tables and their indexes as large as production's would be).
 */

async function count(db: Client, sql: string, values: unknown[] = []): Promise<number> {
  return Number((await db.query(sql, values)).rows[0].count);
}

const FILLER_USER = 'bench-filler';

/**
 * A long-lived table is mostly vacuumed (visibility map set), analysed and checkpointed; a freshly bulk-loaded one
 * is neither, and autovacuum would start in the middle of the next measurement.
 */
async function settle(db: Client, table: string): Promise<void> {
  await db.query(`VACUUM (ANALYZE) ${table}`);
  // A bulk load leaves hundreds of MB of dirty pages; without this the checkpoint that writes them
  // lands in the middle of the next measurement.
  await db.query('CHECKPOINT');
}

/** Fills `vouchers` of the application up to `total` rows: half redeemed, half available. */
export async function seedVouchers(
  db: Client,
  applicationId: string,
  templateId: string,
  total: number,
): Promise<number> {
  const existing = await count(db, `SELECT count(*) FROM vouchers`);
  const missing = total - existing;
  if (missing <= 0) return 0;
  await db.query(`INSERT INTO users (id, name) VALUES ($1, $1) ON CONFLICT (id) DO NOTHING`, [FILLER_USER]);
  const tag = `${Date.now()}`;
  // Filler is not issued stock: replica mode keeps voucher-api's per-row issue-counting trigger from
  // updating the template once per filler row at commit (minutes for a million rows).
  await db.query('BEGIN');
  await db.query(`SET LOCAL session_replication_role = replica`);
  await db.query(
    `INSERT INTO vouchers (id, application_id, template_id, recipient_user_id, status, valid_from, valid_to,
                           qr_token_hash, qr_token_enc, code_hash, code_enc, issued_at, redeemed_at)
     SELECT gen_random_uuid(), $1, $2, $3,
            CASE WHEN g % 2 = 0 THEN 'redeemed' ELSE 'available' END,
            now() - interval '1 day', now() + interval '30 days',
            encode(sha256(convert_to('qr-' || $4 || '-' || g, 'UTF8')), 'hex'), 'filler',
            encode(sha256(convert_to('code-' || $4 || '-' || g, 'UTF8')), 'hex'), 'filler',
            now() - (g % 10000) * interval '1 minute',
            CASE WHEN g % 2 = 0 THEN now() ELSE NULL END
       FROM generate_series(1, $5::int) AS g`,
    [applicationId, templateId, FILLER_USER, tag, missing],
  );
  await db.query('COMMIT');
  await settle(db, 'vouchers');
  return missing;
}

/** Approved, enabled bots that only own filler rows. */
async function fillerBots(db: Client, howMany: number): Promise<void> {
  await db.query(`INSERT INTO users (id, name) VALUES ($1, $1) ON CONFLICT (id) DO NOTHING`, [FILLER_USER]);
  await db.query(
    `INSERT INTO bots (id, owner_id, name, review_status, status)
     SELECT lpad(to_hex(g), 24, 'f'), $1, 'Filler ' || g, 'approved', 'enabled'
       FROM generate_series(1, $2::int) AS g
     ON CONFLICT (id) DO NOTHING`,
    [FILLER_USER, howMany],
  );
  // Every bot has its delivery settings row, as bot-api creates it with the bot.
  await db.query(
    `INSERT INTO bot_delivery_settings (bot_id)
     SELECT lpad(to_hex(g), 24, 'f') FROM generate_series(1, $1::int) AS g
     ON CONFLICT (bot_id) DO NOTHING`,
    [howMany],
  );
}

const FILLER_BOTS = 200;

/**
 * At most this many rows per INSERT … SELECT: 10 M rows in one statement hold one transaction (and its
 * WAL) for minutes with no sign of progress; a few large statements cost no more in total.
 */
const SEED_CHUNK = 2_000_000;

/** Runs `insert` over consecutive ranges of generate_series numbers, 1 to `missing`, at most SEED_CHUNK each. */
async function inChunks(missing: number, insert: (from: number, to: number) => Promise<void>): Promise<void> {
  for (let from = 1; from <= missing; from += SEED_CHUNK) {
    const to = Math.min(missing, from + SEED_CHUNK - 1);
    await insert(from, to);
    if (missing > SEED_CHUNK) console.log(`    ${to.toLocaleString('en')} / ${missing.toLocaleString('en')} rows`);
  }
}

/**
 * Unacknowledged Updates spread over filler bots, up to `total` waiting Updates across all bots, written
 * over the last 20 hours (within the getUpdates retention, across the days of a partitioned table).
 */
export async function seedWaitingUpdates(db: Client, total: number): Promise<number> {
  await fillerBots(db, FILLER_BOTS);
  const missing = total - (await count(db, `SELECT count(*) FROM updates WHERE NOT acknowledged`));
  if (missing <= 0) return 0;
  await inChunks(missing, (from, to) =>
    db
      .query(
        `INSERT INTO updates (update_id, bot_id, type, payload, created_at)
         SELECT gen_random_uuid(), lpad(to_hex(1 + g % $1), 24, 'f'), 'message',
                jsonb_build_object('type', 'message', 'message', jsonb_build_object('text', 'filler ' || g)),
                now() - (g % 72000) * interval '1 second'
           FROM generate_series($2::int, $3::int) AS g`,
        [FILLER_BOTS, from, to],
      )
      .then(() => undefined),
  );
  await settle(db, 'updates');
  return missing;
}

/**
 * Delivery rows up to `total`: a tenth for `botId` (the bot whose console is measured), the rest over
 * filler bots; mostly succeeded, every 50th a dead letter; written over the 30 days of the delivery log's
 * retention (one partition a day on a partitioned table).
 */
export async function seedDeliveries(db: Client, botId: string, total: number): Promise<number> {
  await fillerBots(db, FILLER_BOTS);
  const missing = total - (await count(db, `SELECT count(*) FROM webhook_deliveries`));
  if (missing <= 0) return 0;
  const base = await count(db, `SELECT coalesce(max(update_seq), 0) AS count FROM webhook_deliveries`);
  await inChunks(missing, (from, to) =>
    db
      .query(
        `INSERT INTO webhook_deliveries (bot_id, update_seq, update_id, update_type, payload, status, attempts,
                                         succeeded_at, dead_letter_at, created_at, updated_at)
         SELECT CASE WHEN g % 10 = 0 THEN $1 ELSE lpad(to_hex(1 + g % $2), 24, 'f') END,
                $3::bigint + g, gen_random_uuid(), 'message',
                jsonb_build_object('type', 'message', 'message', jsonb_build_object('text', 'filler ' || g)),
                CASE WHEN g % 50 = 0 THEN 'dead_letter' ELSE 'succeeded' END, 1,
                CASE WHEN g % 50 = 0 THEN NULL ELSE now() END,
                CASE WHEN g % 50 = 0 THEN now() ELSE NULL END,
                now() - (g % 30) * interval '1 day' - (g % 86400) * interval '1 second', now()
           FROM generate_series($4::int, $5::int) AS g`,
        [botId, FILLER_BOTS, base, from, to],
      )
      .then(() => undefined),
  );
  await settle(db, 'webhook_deliveries');
  return missing;
}
