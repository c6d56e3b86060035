import { createTestDatabase, TestDatabase, testDatabaseSettings, testDataSource } from '@app/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import { Database, executeAll, loadConfig, poolConfig } from '@app/platform';
import { db } from '@app/bot-schema';
import { sql } from 'kysely';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { DispatcherConfig } from '../src/config/dispatcher.config';
import { AttemptRecorder } from '../src/delivery/attempt-recorder';
import { AttemptOutcome, AttemptRecord, DeliveryDomain, DueDelivery, withOutboxWritten } from '@app/bot-delivery';
import { botMigrations } from './bot-schema';

interface DeliveryRow {
  status: string;
  attempts: number;
  series: number;
  last_error: string | null;
  last_status_code: number | null;
  due_in_ms: number;
  succeeded: boolean;
  dead: boolean;
  acknowledged: boolean;
}

describe('delivery store: attempts recorded in batches (real PostgreSQL)', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let pool: Database;
  let store: DeliveryDomain;

  const openPool = (poolSize: number) =>
    new Database(new Pool(poolConfig(testDatabaseSettings(database.name, poolSize))));

  beforeAll(async () => {
    database = await createTestDatabase('bot', await botMigrations());
    dataSource = testDataSource(database.name);
    await dataSource.initialize();
    pool = openPool(4);
    store = new DeliveryDomain(pool);
  });
  afterAll(async () => {
    await pool?.end();
    await dataSource?.destroy();
    await database?.drop();
  });

  async function webhookBot(): Promise<string> {
    const id = randomBytes(12).toString('hex');
    await dataSource.query(
      `WITH bot AS (
         INSERT INTO bots (id, owner_id, name, review_status, status)
         VALUES ($1::varchar, 'owner', 'store test', 'approved', 'enabled') RETURNING id)
       INSERT INTO bot_delivery_settings (bot_id, delivery_mode, webhook_url, webhook_secret_ciphertext)
       SELECT id, 'webhook', 'https://hooks.example/' || id, 'sealed' FROM bot`,
      [id],
    );
    return id;
  }

  /** An Update and its pending delivery, as bot-api writes them. */
  async function pendingDelivery(botId: string): Promise<DueDelivery> {
    const [row] = await dataSource.query(
      `WITH u AS (
         INSERT INTO updates (update_id, bot_id, type, payload)
         VALUES (gen_random_uuid(), $1::varchar, 'message', '{}') RETURNING update_seq, update_id)
       INSERT INTO webhook_deliveries (bot_id, update_seq, update_id, update_type, payload)
       SELECT $1::varchar, update_seq, update_id, 'message', jsonb_build_object('update_id', update_id) FROM u
       RETURNING id, update_id, update_seq`,
      [botId],
    );
    return {
      id: row.id,
      botId,
      updateId: row.update_id,
      updateSeq: Number(row.update_seq),
      format: 'native',
      series: 1,
      attempts: 0,
      payload: {},
      url: 'https://hooks.example/',
      secretCiphertext: 'sealed',
      previousSecretCiphertext: null,
      notBefore: null,
      allowedIps: null,
      maxConnections: 40,
    };
  }

  function outcome(delivery: DueDelivery, result: AttemptOutcome, attempt = delivery.attempts + 1): AttemptRecord {
    const ok = result === 'succeeded';
    return {
      delivery,
      attempt,
      outcome: result,
      retryDelayMs: result === 'retrying' ? 60_000 : 0,
      result: { ok, statusCode: ok ? 200 : 502, latencyMs: 12, error: ok ? null : `HTTP 502 (${attempt})` },
    };
  }

  async function deliveryRow(id: string): Promise<DeliveryRow> {
    const [row] = await dataSource.query(
      `SELECT d.status, d.attempts, d.series, d.last_error, d.last_status_code,
              extract(epoch FROM d.next_attempt_at - now()) * 1000 AS due_in_ms,
              d.succeeded_at IS NOT NULL AS succeeded, d.dead_letter_at IS NOT NULL AS dead, u.acknowledged
         FROM webhook_deliveries d JOIN updates u ON u.update_seq = d.update_seq
        WHERE d.id = $1`,
      [id],
    );
    return { ...row, due_in_ms: Number(row.due_in_ms) };
  }

  async function attemptLog(id: string) {
    return dataSource.query(
      `SELECT series, attempt, status_code, latency_ms, error FROM webhook_delivery_attempts
        WHERE delivery_id = $1 ORDER BY series, attempt`,
      [id],
    );
  }

  it('records a mixed batch with one statement: each delivery moves on and logs its attempt', async () => {
    const botId = await webhookBot();
    const [good, flaky, last] = await Promise.all([1, 2, 3].map(() => pendingDelivery(botId)));
    await dataSource.query(`UPDATE webhook_deliveries SET attempts = 4, status = 'retrying' WHERE id = $1`, [last.id]);
    const recorded = await store.recordAttempts([
      outcome(good, 'succeeded'),
      outcome(flaky, 'retrying'),
      outcome({ ...last, attempts: 4 }, 'dead_letter'),
    ]);
    expect(recorded).toEqual([true, true, true]);

    expect(await deliveryRow(good.id)).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      succeeded: true,
      dead: false,
      last_error: null,
      last_status_code: 200,
      // Delivered by webhook means confirmed for getUpdates.
      acknowledged: true,
    });
    const retrying = await deliveryRow(flaky.id);
    expect(retrying).toMatchObject({
      status: 'retrying',
      attempts: 1,
      last_error: 'HTTP 502 (1)',
      acknowledged: false,
    });
    expect(retrying.due_in_ms).toBeGreaterThan(55_000);
    expect(retrying.due_in_ms).toBeLessThanOrEqual(60_000);
    expect(await deliveryRow(last.id)).toMatchObject({
      status: 'dead_letter',
      attempts: 5,
      dead: true,
      last_error: 'WEBHOOK_DELIVER_FAILED: 5 attempts failed; last: HTTP 502 (5)',
      acknowledged: false,
    });
    expect(await attemptLog(good.id)).toEqual([
      { series: 1, attempt: 1, status_code: 200, latency_ms: 12, error: null },
    ]);
    expect(await attemptLog(last.id)).toEqual([
      { series: 1, attempt: 5, status_code: 502, latency_ms: 12, error: 'HTTP 502 (5)' },
    ]);
    // The bot shows the latest failure of the batch.
    const [bot] = await dataSource.query(
      `SELECT webhook_last_error_message, webhook_last_error_at IS NOT NULL AS failed FROM bot_delivery_settings WHERE bot_id = $1`,
      [botId],
    );
    expect(bot).toEqual({ webhook_last_error_message: 'HTTP 502 (5)', failed: true });
  });

  it('records nothing for an attempt whose delivery moved on, and still records the rest of the batch', async () => {
    const botId = await webhookBot();
    const [redelivered, counted, deleted, fine] = await Promise.all([1, 2, 3, 4].map(() => pendingDelivery(botId)));
    // A manual redelivery started series 2 while the series-1 attempt was in flight.
    await dataSource.query(`UPDATE webhook_deliveries SET series = 2 WHERE id = $1`, [redelivered.id]);
    // Another run of the same job already counted this attempt.
    await dataSource.query(`UPDATE webhook_deliveries SET attempts = 1, status = 'retrying' WHERE id = $1`, [
      counted.id,
    ]);
    // deleteWebhook removed the open delivery.
    await dataSource.query(`DELETE FROM webhook_deliveries WHERE id = $1`, [deleted.id]);

    const recorded = await store.recordAttempts([
      outcome(redelivered, 'succeeded'),
      outcome(counted, 'retrying'),
      outcome(deleted, 'succeeded'),
      outcome(fine, 'succeeded'),
    ]);
    expect(recorded).toEqual([false, false, false, true]);
    expect(await deliveryRow(redelivered.id)).toMatchObject({ status: 'pending', series: 2, attempts: 0 });
    expect(await deliveryRow(counted.id)).toMatchObject({ status: 'retrying', attempts: 1 });
    for (const stale of [redelivered, counted, deleted]) expect(await attemptLog(stale.id)).toEqual([]);
    expect(await deliveryRow(fine.id)).toMatchObject({ status: 'succeeded', attempts: 1, acknowledged: true });
  });

  it('counts one attempt once when it appears twice in a batch', async () => {
    const delivery = await pendingDelivery(await webhookBot());
    const recorded = await store.recordAttempts([outcome(delivery, 'retrying'), outcome(delivery, 'retrying')]);
    expect(recorded.filter(Boolean)).toHaveLength(1);
    expect(await deliveryRow(delivery.id)).toMatchObject({ status: 'retrying', attempts: 1 });
    expect(await attemptLog(delivery.id)).toHaveLength(1);
  });

  it('counts each attempt once when two replicas record the same attempts at the same time', async () => {
    const botId = await webhookBot();
    const deliveries = await Promise.all(Array.from({ length: 40 }, () => pendingDelivery(botId)));
    const replica = openPool(4);
    try {
      const config = loadConfig(DispatcherConfig, { WEBHOOK_RECORD_BATCH_WINDOW_MS: '5' });
      const recorders = [new AttemptRecorder(config, store), new AttemptRecorder(config, new DeliveryDomain(replica))];
      const batch = deliveries.map((delivery, i) => outcome(delivery, i % 3 === 0 ? 'succeeded' : 'retrying'));
      const answers = await Promise.all(
        recorders.map((recorder, r) =>
          Promise.all((r === 0 ? batch : [...batch].reverse()).map((record) => recorder.record(record))),
        ),
      );
      answers[1].reverse();
      // Exactly one of the two recorded each attempt.
      expect(answers[0].map((recorded, i) => Number(recorded) + Number(answers[1][i]))).toEqual(
        deliveries.map(() => 1),
      );
      const [counts] = await dataSource.query(
        `SELECT count(*)::int AS attempts, count(DISTINCT delivery_id)::int AS deliveries
           FROM webhook_delivery_attempts WHERE delivery_id = ANY($1::uuid[])`,
        [deliveries.map((d) => d.id)],
      );
      expect(counts).toEqual({ attempts: 40, deliveries: 40 });
      const rows = await Promise.all(deliveries.map((d) => deliveryRow(d.id)));
      expect(rows.every((row) => row.attempts === 1)).toBe(true);
    } finally {
      await replica.end();
    }
  });
  it('loads the deliveries of many jobs with one statement, each with what it finds', async () => {
    const botId = await webhookBot();
    const [due, redelivered, finished, unhooked, disabled] = await Promise.all(
      [1, 2, 3, 4, 5].map(async (i) => (i < 4 ? pendingDelivery(botId) : pendingDelivery(await webhookBot()))),
    );
    await dataSource.query(`UPDATE webhook_deliveries SET series = 2 WHERE id = $1`, [redelivered.id]);
    await dataSource.query(
      `UPDATE webhook_deliveries SET status = 'succeeded', attempts = 1, succeeded_at = now() WHERE id = $1`,
      [finished.id],
    );
    await dataSource.query(
      `UPDATE bot_delivery_settings SET delivery_mode = 'polling', webhook_url = NULL WHERE bot_id = $1`,
      [unhooked.botId],
    );
    await dataSource.query(`UPDATE bots SET status = 'disabled' WHERE id = $1`, [disabled.botId]);
    const job = (deliveryId: string, series = 1) => ({ deliveryId, series, priorAttempts: 0 });

    const found = await store.loadDue([
      job(due.id),
      job(redelivered.id),
      job(finished.id),
      job(unhooked.id),
      job(disabled.id),
      job('2b1f3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d'),
      // Not a uuid: answered without failing the statement of the others.
      job('not-a-delivery'),
      job(due.id),
    ]);
    expect(found).toEqual([
      expect.objectContaining({ id: due.id, botId, series: 1, attempts: 0, url: `https://hooks.example/${botId}` }),
      'superseded',
      'finished',
      'not_webhook',
      'bot_unavailable',
      'gone',
      'gone',
      expect.objectContaining({ id: due.id }),
    ]);
    expect((found[0] as DueDelivery).payload).toEqual({ update_id: due.updateId });
  });
  it('gives a delivery to an unconfirmed Update of a webhook bot that has none, never to one of a polling bot', async () => {
    const hooked = await webhookBot();
    const polling = await webhookBot();
    await dataSource.query(
      `UPDATE bot_delivery_settings SET delivery_mode = 'polling', webhook_url = NULL WHERE bot_id = $1`,
      [polling],
    );
    const orphan = async (botId: string): Promise<string> => {
      const [row] = await dataSource.query(
        `INSERT INTO updates (update_id, bot_id, type, payload)
         VALUES (gen_random_uuid(), $1::varchar, 'message', '{}') RETURNING update_id`,
        [botId],
      );
      return row.update_id;
    };
    const [hookedUpdate, pollingUpdate] = [await orphan(hooked), await orphan(polling)];
    const alreadyDelivered = await pendingDelivery(hooked);

    const adopted = await store.adoptOrphans(0, 500);
    const created = await dataSource.query(
      `SELECT update_id, bot_id, status FROM webhook_deliveries WHERE id = ANY($1::uuid[])`,
      [adopted.map((row) => row.id)],
    );
    expect(created).toContainEqual({ update_id: hookedUpdate, bot_id: hooked, status: 'pending' });
    expect(created.map((row: { update_id: string }) => row.update_id)).not.toContain(pollingUpdate);
    expect(created.map((row: { update_id: string }) => row.update_id)).not.toContain(alreadyDelivered.updateId);
    expect(await store.adoptOrphans(0, 500)).toEqual([]);
  });

  it('writes the Updates of a gated outbox only when its gate has a row, each with a delivery for a webhook bot', async () => {
    const botId = await webhookBot();
    const write = (gateOpen: boolean) => {
      const updateId = randomUUID();
      const columns = {
        update_ids: [updateId],
        update_bot_ids: [botId],
        update_types: ['message'],
        update_payloads: ['{}'],
        update_created_ats: [null],
      };
      const gated = db.with('gate', (qb) => qb.selectNoFrom(sql.lit(1).as('one')).where(sql.lit(gateOpen)));
      const statement = withOutboxWritten(gated, columns, 'gate')
        .selectFrom('written_updates as w')
        .leftJoin('delivered as d', 'd.update_id', 'w.update_id')
        .select(['w.update_id', 'w.bot_id', 'd.id as delivery_id']);
      return { updateId, rows: executeAll(pool, statement) };
    };

    const closed = write(false);
    expect(await closed.rows).toEqual([]);
    const open = write(true);
    expect(await open.rows).toEqual([{ update_id: open.updateId, bot_id: botId, delivery_id: expect.any(String) }]);
    const [delivery] = await dataSource.query(`SELECT status FROM webhook_deliveries WHERE update_id = $1`, [
      open.updateId,
    ]);
    expect(delivery).toEqual({ status: 'pending' });
  });

  /** Writes one Update through the outbox, as bot-api's intake does; returns the rows written. */
  const writeUpdate = (botId: string, updateId: string, createdAt: string | null) =>
    store.writeOutbox(pool, {
      update_ids: [updateId],
      update_bot_ids: [botId],
      update_types: ['message'],
      update_payloads: ['{}'],
      update_created_ats: [createdAt],
    });

  it("writes an Update at its event's recorded time, its delivery at the Update's, and a repeat of the event not at all", async () => {
    const botId = await webhookBot();
    const updateId = randomUUID();
    const [{ recorded }] = await dataSource.query(`SELECT (now() - interval '3 minutes')::text AS recorded`);
    const recordedAt = new Date(recorded).toISOString();

    const [written] = await writeUpdate(botId, updateId, recordedAt);
    expect(written).toMatchObject({ update_id: updateId, delivery_id: expect.any(String) });
    // The same event written again (a retry, a second instance) meets the first row, with no arbiter named.
    expect(await writeUpdate(botId, updateId, recordedAt)).toEqual([]);

    const rows = await dataSource.query(
      `SELECT u.created_at AS update_at, d.created_at AS delivery_at
         FROM updates u JOIN webhook_deliveries d USING (update_id) WHERE u.update_id = $1`,
      [updateId],
    );
    expect(rows).toEqual([{ update_at: new Date(recordedAt), delivery_at: new Date(recordedAt) }]);
  });

  it('writes an Update without a recorded time at the time of the statement', async () => {
    const botId = await webhookBot();
    const updateId = randomUUID();
    const [{ before }] = await dataSource.query(`SELECT now() AS before`);
    await writeUpdate(botId, updateId, null);
    const [{ created_at, after }] = await dataSource.query(
      `SELECT created_at, now() AS after FROM updates WHERE update_id = $1`,
      [updateId],
    );
    expect(created_at.getTime()).toBeGreaterThanOrEqual(before.getTime());
    expect(created_at.getTime()).toBeLessThanOrEqual(after.getTime());
  });

  it("logs each attempt with its delivery's created_at, the day both are to be partitioned by", async () => {
    const botId = await webhookBot();
    const delivery = await pendingDelivery(botId);
    await dataSource.query(`UPDATE webhook_deliveries SET created_at = now() - interval '2 days' WHERE id = $1`, [
      delivery.id,
    ]);
    expect(await store.recordAttempts([outcome(delivery, 'retrying')])).toEqual([true]);
    const [attempt] = await dataSource.query(
      `SELECT a.delivery_created_at = d.created_at AS same_day_key, a.delivery_created_at < a.created_at AS older
         FROM webhook_delivery_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.id = $1`,
      [delivery.id],
    );
    expect(attempt).toEqual({ same_day_key: true, older: true });
  });
});
