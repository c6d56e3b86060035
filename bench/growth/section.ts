import { BENCH_DATABASES, connect } from '../lib/db';
import type { Report } from '../lib/report';
import { probeInstanceEnv, StackSettings, startApp } from '../lib/stack';
import { botProbeRequests, BotSection } from '../bots/section';
import { explainStatements, probeStatements, ProbeRequests } from '../probe';
import { voucherProbeRequests, voucherSupply, VoucherSection } from '../voucher/section';
import { APP_CHANNEL } from '../bots/section';
import type { WebhookReceiver } from '../lib/receiver';
import { dispatcherEnv } from '../lib/stack';
import { botGrowth, GrowthRow, growthTable, voucherGrowth } from './run';

/** The sizes of the growth runs (`--growth-updates`, `--growth-deliveries`, `--skip-voucher-growth`). */
export interface GrowthSizes {
  /** Waiting Updates across all bots: getUpdates, the intake and the drain are measured at each. */
  updates: [number, number];
  /** Rows of the delivery log: the deliveries console is measured at each. */
  deliveries: [number, number];
  /** Redeem and verify at 100 k and 1 M vouchers too. */
  vouchers: boolean;
}

export const DEFAULT_GROWTH_SIZES: GrowthSizes = {
  updates: [10_000, 100_000],
  deliveries: [100_000, 1_000_000],
  vouchers: true,
};

function only(requests: ProbeRequests, names: string[]): ProbeRequests {
  return (app) => requests(app).filter((request) => names.includes(request.name));
}

/**
 * Throughput and CPU per request of redeem, verify (unless left out), getUpdates, the intake, the drain
 * and the deliveries console at two table sizes, and EXPLAIN (ANALYZE, BUFFERS) of what one request of each runs at the larger size.
 */
export async function runGrowth(
  vouchers: VoucherSection,
  bots: BotSection,
  settings: StackSettings,
  report: Report,
  durationSeconds: number,
  receiver: WebhookReceiver,
  sizes: GrowthSizes = DEFAULT_GROWTH_SIZES,
): Promise<void> {
  console.log('growth: seeding bulk rows and measuring at two sizes…');
  // Redeem needs a fresh voucher per request, issued beforehand; half the duration keeps that supply
  // to what the issue runs left plus a short top-up. The bot rows consume nothing and take the whole
  // duration: on a 2-core box a 5 s window moved their ratio by up to 0.2 between runs.
  const growthSeconds = Math.max(3, Math.round(durationSeconds / 2));
  const botGrowthSeconds = Math.max(3, durationSeconds);
  const explains: string[] = [];
  /** The statements of a request are captured again at the larger size: some depend on the data. */
  const explainAtLargeSize =
    (database: string, app: 'voucher-api' | 'bot-api', requests: ProbeRequests, tables: string[]) => async () => {
      const captured = await probeStatements(
        (dbPort) => startApp(app, probeInstanceEnv(app, settings, dbPort)),
        requests,
      );
      const db = await connect(database);
      try {
        for (const probe of captured) explains.push(await explainStatements(db, probe, tables));
      } finally {
        await db.end();
      }
    };
  const rows: GrowthRow[] = [];
  if (sizes.vouchers) {
    const rate = vouchers.redeemRate ?? 500;
    const supply = await voucherSupply(vouchers, Math.ceil(2 * rate * growthSeconds * 1.2), 3 * durationSeconds);
    const voucherDb = await connect(BENCH_DATABASES.voucher);
    try {
      rows.push(
        ...(await voucherGrowth(
          vouchers.app,
          vouchers.world,
          voucherDb,
          { vouchers: supply, used: vouchers.used },
          [100_000, 1_000_000],
          growthSeconds,
          async () => {
            const held = await voucherSupply(vouchers, 5, 30);
            await explainAtLargeSize(
              BENCH_DATABASES.voucher,
              'voucher-api',
              only(voucherProbeRequests(vouchers, held), ['redeem', 'verify']),
              ['vouchers', 'redemptions', 'idempotency_keys', 'app_tokens'],
            )();
          },
        )),
      );
    } finally {
      await voucherDb.end();
    }
  }
  const botDb = await connect(BENCH_DATABASES.bot);
  try {
    rows.push(
      ...(await botGrowth(
        bots.app,
        bots.world,
        botDb,
        { updates: sizes.updates, deliveries: sizes.deliveries },
        botGrowthSeconds,
        explainAtLargeSize(
          BENCH_DATABASES.bot,
          'bot-api',
          only(botProbeRequests(bots), ['getUpdates', 'deliveries console']),
          ['updates', 'webhook_deliveries', 'messages'],
        ),
        // A dispatcher left running by the drain path would take the intake's deliveries as they come.
        bots.dispatcher
          ? undefined
          : {
              receiver,
              channel: APP_CHANNEL,
              startDispatcher: () => startApp('bot-dispatcher', dispatcherEnv(settings, receiver.caFile)),
            },
      )),
    );
  } finally {
    await botDb.end();
  }
  const layout = settings.partitionedDeliveryTables ? '; delivery tables partitioned by day' : '';
  report.section(
    `Growth (${growthSeconds} s per voucher measurement, ${botGrowthSeconds} s per bot measurement; bulk rows seeded with SQL${layout})`,
    growthTable(rows),
  );
  report.section(
    'EXPLAIN (ANALYZE, BUFFERS) at the larger size, of the statements one request runs there',
    explains.join('\n\n'),
  );
}
