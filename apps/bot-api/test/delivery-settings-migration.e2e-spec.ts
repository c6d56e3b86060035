import { createEmptyDatabase, testDataSource, TestDatabase } from '@app/testing';
import { DataSource } from 'typeorm';
import { botMigrations } from '../src/database/migrations';
import { CreateBotDeliverySettings1796100000000 } from '../src/database/migrations/1796100000000-CreateBotDeliverySettings';

const WEBHOOK_BOT = 'a'.repeat(24);
const POLLING_BOT = 'b'.repeat(24);

/** Every delivery setting of a bot with a webhook, as its row held them before the move. */
const WEBHOOK_SETTINGS = {
  delivery_mode: 'webhook',
  allowed_updates: ['message', 'callback_query'],
  webhook_url: 'https://hooks.example/bot',
  webhook_secret_ciphertext: 'v1:sealed-current',
  webhook_allowed_ips: ['203.0.113.0/24'],
  webhook_max_connections: 7,
  webhook_last_error_at: new Date('2030-01-02T03:04:05.000Z'),
  webhook_last_error_message: 'HTTP 502',
  webhook_previous_secret_ciphertext: 'v1:sealed-previous',
  webhook_previous_secret_expires_at: new Date('2030-01-03T00:00:00.000Z'),
  webhook_not_before: new Date('2030-01-02T03:05:00.000Z'),
  webhook_gone_streak: 2,
  webhook_paused_at: new Date('2030-01-02T03:06:00.000Z'),
  auto_redeliver_dead_letters: true,
  webhook_recovered_at: new Date('2030-01-02T03:07:00.000Z'),
  webhook_format: 'telegram',
};

const COLUMNS = Object.keys(WEBHOOK_SETTINGS);

const POLLING_DEFAULTS = {
  delivery_mode: 'polling',
  allowed_updates: null,
  webhook_url: null,
  webhook_secret_ciphertext: null,
  webhook_allowed_ips: null,
  webhook_max_connections: 40,
  webhook_last_error_at: null,
  webhook_last_error_message: null,
  webhook_previous_secret_ciphertext: null,
  webhook_previous_secret_expires_at: null,
  webhook_not_before: null,
  webhook_gone_streak: 0,
  webhook_paused_at: null,
  auto_redeliver_dead_letters: false,
  webhook_recovered_at: null,
  webhook_format: 'native',
};

describe('moving the delivery settings of bots into bot_delivery_settings', () => {
  const position = botMigrations.indexOf(CreateBotDeliverySettings1796100000000);
  let database: TestDatabase;
  let dataSource: DataSource;

  async function migrateTo(count: number): Promise<void> {
    await dataSource?.destroy();
    dataSource = testDataSource(database.name, botMigrations.slice(0, count));
    await dataSource.initialize();
    await dataSource.runMigrations();
  }

  async function columnsOf(table: string): Promise<string[]> {
    const rows: Array<{ column_name: string }> = await dataSource.query(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1`,
      [table],
    );
    return rows.map((row) => row.column_name);
  }

  beforeAll(async () => {
    database = await createEmptyDatabase('bot_dsm');
    await migrateTo(position);
    await dataSource.query(
      `INSERT INTO bots (id, owner_id, name, updated_at, ${COLUMNS.join(', ')})
       VALUES ($1, 'owner', 'Hooked', '2030-01-01T00:00:00Z', ${COLUMNS.map((_, i) => `$${i + 2}`).join(', ')})`,
      [WEBHOOK_BOT, ...Object.values(WEBHOOK_SETTINGS)],
    );
    await dataSource.query(
      `INSERT INTO bots (id, owner_id, name, updated_at) VALUES ($1, 'owner', 'Polling', '2030-01-01T00:00:00Z')`,
      [POLLING_BOT],
    );
    await migrateTo(position + 1);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  it('up: copies every bot’s settings into one row of bot_delivery_settings and drops them from bots', async () => {
    const rows = await dataSource.query(
      `SELECT bot_id, ${COLUMNS.join(', ')}, updated_at FROM bot_delivery_settings ORDER BY bot_id`,
    );
    expect(rows).toEqual([
      { bot_id: WEBHOOK_BOT, ...WEBHOOK_SETTINGS, updated_at: new Date('2030-01-01T00:00:00Z') },
      { bot_id: POLLING_BOT, ...POLLING_DEFAULTS, updated_at: new Date('2030-01-01T00:00:00Z') },
    ]);
    const left = await columnsOf('bots');
    expect(left).toEqual(expect.arrayContaining(['id', 'name', 'review_status', 'updated_at']));
    expect(left.filter((column) => COLUMNS.includes(column))).toEqual([]);
  });

  it('up: a removed bot takes its settings with it', async () => {
    await dataSource.query(`INSERT INTO bots (id, owner_id, name) VALUES ($1, 'owner', 'Short-lived')`, [
      'c'.repeat(24),
    ]);
    await dataSource.query(`INSERT INTO bot_delivery_settings (bot_id) VALUES ($1)`, ['c'.repeat(24)]);
    await dataSource.query(`DELETE FROM bots WHERE id = $1`, ['c'.repeat(24)]);
    expect(
      await dataSource.query(`SELECT bot_id FROM bot_delivery_settings WHERE bot_id = $1`, ['c'.repeat(24)]),
    ).toEqual([]);
  });

  it('down: restores the columns of bots with each bot’s settings, and the last change of either as updated_at', async () => {
    await dataSource.query(
      `UPDATE bot_delivery_settings SET webhook_max_connections = 9, updated_at = '2030-02-01T00:00:00Z'
        WHERE bot_id = $1`,
      [WEBHOOK_BOT],
    );
    await dataSource.undoLastMigration();
    const rows = await dataSource.query(`SELECT id, ${COLUMNS.join(', ')}, updated_at FROM bots ORDER BY id`);
    expect(rows).toEqual([
      {
        id: WEBHOOK_BOT,
        ...WEBHOOK_SETTINGS,
        webhook_max_connections: 9,
        updated_at: new Date('2030-02-01T00:00:00Z'),
      },
      { id: POLLING_BOT, ...POLLING_DEFAULTS, updated_at: new Date('2030-01-01T00:00:00Z') },
    ]);
    expect(await columnsOf('bot_delivery_settings')).toEqual([]);
  });

  it('down then up again: the settings survive the round trip', async () => {
    await dataSource.runMigrations();
    const [row] = await dataSource.query(`SELECT ${COLUMNS.join(', ')} FROM bot_delivery_settings WHERE bot_id = $1`, [
      WEBHOOK_BOT,
    ]);
    expect(row).toEqual({ ...WEBHOOK_SETTINGS, webhook_max_connections: 9 });
  });
});
