import { performance } from 'node:perf_hooks';
import type { Client } from 'pg';
import { BOT_API, BotWorld } from '../bots/world';
import { describeFailures, LoadResult, runLoad } from '../lib/load';
import type { BenchProcess } from '../lib/processes';
import { formatTable } from '../lib/report';
import { redeemLoad, verifyLoad } from '../voucher/paths';
import type { HeldVoucher, VoucherWorld } from '../voucher/world';
import { seedDeliveries, seedVouchers, seedWaitingUpdates } from './seed';

export interface GrowthRow {
  path: string;
  small: LoadResult;
  large: LoadResult;
  sizes: [string, string];
}

export function growthTable(rows: GrowthRow[]): string {
  return formatTable(
    ['path', 'small size', 'req/s', 'large size', 'req/s', 'large/small', 'target', 'failures'],
    rows.map((row) => {
      const ratio = row.large.perSecond / row.small.perSecond;
      return [
        row.path,
        row.sizes[0],
        row.small.perSecond.toFixed(0),
        row.sizes[1],
        row.large.perSecond.toFixed(0),
        `${ratio.toFixed(2)}×`,
        ratio >= 0.8 ? 'within 20 %' : 'MISSED (> 20 % slower)',
        [describeFailures(row.small), describeFailures(row.large)].filter(Boolean).join(' / '),
      ];
    }),
  );
}

async function timed<T>(label: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await work();
  console.log(`  ${label} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

/** Redeem and verify with the vouchers table at `sizes[0]` and then `sizes[1]` rows. */
export async function voucherGrowth(
  app: BenchProcess,
  world: VoucherWorld,
  db: Client,
  vouchers: HeldVoucher[],
  sizes: [number, number],
  durationSeconds: number,
  explainAtLargeSize: () => Promise<void>,
): Promise<GrowthRow[]> {
  const qr = vouchers.map((v) => v.qrToken);
  const halves = [qr.slice(0, Math.floor(qr.length / 2)), qr.slice(Math.floor(qr.length / 2))];
  const results: Record<string, LoadResult[]> = { redeem: [], verify: [] };
  for (const [index, size] of sizes.entries()) {
    await timed(`seeded vouchers up to ${size}`, () =>
      seedVouchers(db, world.applicationId, world.manyTemplates[0], size),
    );
    results.verify.push(await verifyLoad(app.port, world.appToken, halves[index], durationSeconds, app.pid));
    results.redeem.push(await redeemLoad(app.port, world.appToken, halves[index], durationSeconds, app.pid));
  }
  await explainAtLargeSize();
  const labels: [string, string] = [sizes[0].toLocaleString('en'), sizes[1].toLocaleString('en')];
  return [
    { path: 'redeem', small: results.redeem[0], large: results.redeem[1], sizes: labels },
    { path: 'verify', small: results.verify[0], large: results.verify[1], sizes: labels },
  ];
}

/**
 * getUpdates of a bot with 100 waiting Updates of its own while `sizes` Updates wait across all bots,
 * and the deliveries console of a bot while the delivery log holds `deliverySizes` rows.
 */
export async function botGrowth(
  app: BenchProcess,
  world: BotWorld,
  db: Client,
  sizes: { updates: [number, number]; deliveries: [number, number] },
  durationSeconds: number,
  explainAtLargeSize: () => Promise<void>,
): Promise<GrowthRow[]> {
  const { api, accounts, polling, webhook, users } = world;
  // 100 Updates of the measured bot itself, made the way users make them.
  let offset = 0;
  for (;;) {
    const pending = await api.call('POST', `${BOT_API}/getUpdates`, polling.token, { offset, timeout: 0 });
    if (pending.length === 0) break;
    offset = pending[pending.length - 1].update_seq + 1;
  }
  const user = await accounts.user(users[0]);
  for (let i = 0; i < 100; i++) {
    await api.call('POST', `${BOT_API}/client/chats/${polling.chats[0]}/messages`, user, { text: `waiting ${i}` });
  }
  const getUpdates = () =>
    runLoad({
      port: app.port,
      durationSeconds,
      serverPid: app.pid,
      next: () => ({
        method: 'POST',
        path: `${BOT_API}/getUpdates`,
        headers: { authorization: `Bearer ${polling.token}` },
        body: JSON.stringify({ offset, timeout: 0, limit: 100 }),
      }),
    });
  const owner = await accounts.user(webhook.owner);
  const deliveries = () =>
    runLoad({
      port: app.port,
      durationSeconds,
      serverPid: app.pid,
      next: () => ({
        method: 'GET',
        path: `${BOT_API}/my/${webhook.botId}/deliveries`,
        headers: { authorization: `Bearer ${owner}` },
      }),
    });

  const updates: LoadResult[] = [];
  const console_: LoadResult[] = [];
  for (const index of [0, 1]) {
    await timed(`seeded waiting Updates up to ${sizes.updates[index]}`, () =>
      seedWaitingUpdates(db, sizes.updates[index]),
    );
    updates.push(await getUpdates());
    await timed(`seeded delivery rows up to ${sizes.deliveries[index]}`, () =>
      seedDeliveries(db, webhook.botId, sizes.deliveries[index]),
    );
    console_.push(await deliveries());
  }
  await explainAtLargeSize();
  const label = (n: number) => n.toLocaleString('en');
  return [
    {
      path: 'getUpdates (100 waiting for the bot)',
      small: updates[0],
      large: updates[1],
      sizes: [`${label(sizes.updates[0])} Updates`, `${label(sizes.updates[1])} Updates`],
    },
    {
      path: 'deliveries console',
      small: console_[0],
      large: console_[1],
      sizes: [`${label(sizes.deliveries[0])} rows`, `${label(sizes.deliveries[1])} rows`],
    },
  ];
}
