import { BASELINE_SCHEMA, seedVoucherBaseline } from '../baselines/schema';
import { FAIR_RATE_LIMIT_TABLE } from '../baselines/voucher-fair';
import { Accounts, apiClient } from '../lib/api';
import type { LoadDriver } from '../lib/load';
import { BENCH_DATABASES, withClient } from '../lib/db';
import { BenchProcess, freePort, httpReady, rssMb, scriptArgs, startProcess } from '../lib/processes';
import type { Report } from '../lib/report';
import { baselineDbEnv, coordinationEnv, StackSettings, startApp, voucherEnv } from '../lib/stack';
import { ProbedRequest } from '../probe';
import { benchIssue, benchVerifyAndRedeem, issueMore, VoucherRun } from './paths';
import { benchSealedRedeem } from './sealed';
import {
  availableVouchers,
  HeldVoucher,
  issueRequests,
  prepareVoucherWorld,
  redeemBody,
  verifyBody,
  VOUCHER_API,
  VoucherWorld,
} from './world';

export interface VoucherSection {
  app: BenchProcess;
  world: VoucherWorld;
  idleRssMb: number;
  used: Set<string>;
  /** Redeems per second measured, to size the voucher supply of later runs. */
  redeemRate?: number;
}

export async function startVoucherSection(settings: StackSettings): Promise<VoucherSection> {
  const app = await startApp('voucher-api', voucherEnv(settings));
  const idleRssMb = rssMb(app.pid);
  const world = await prepareVoucherWorld(apiClient(app.port), new Accounts(settings.secrets.accountJwtSecret), {
    users: 200,
    manyTemplates: 20,
  });
  return { app, world, idleRssMb, used: new Set() };
}

/** Available vouchers not used yet; issues more first (not measured) when fewer than `atLeast` are left. */
export async function voucherSupply(
  section: VoucherSection,
  atLeast: number,
  maxSeconds: number,
): Promise<HeldVoucher[]> {
  let vouchers = await availableVouchers(section.world, section.used);
  if (vouchers.length < atLeast) {
    await issueMore(section.app, section.world, atLeast - vouchers.length, maxSeconds);
    vouchers = await availableVouchers(section.world, section.used);
  }
  return vouchers;
}

/** The fair baseline's counters sit under the run's prefix, apart from the apps' and the other baselines'. */
const VOUCHER_BASELINE_KEY_PREFIX = 'voucher-baseline:';

/**
 * node:http + pg: the redeem and verify baseline uses no queue. Its plain routes run the same in both
 * modes; its fair routes count calls in the mode's store (Redis, or a table of the baseline database).
 * `vouchers` are seeded for each of the two redeem runs: the plain one redeems baselineQrToken(0 …
 * vouchers − 1), the fair one the next `vouchers`.
 */
export async function startVoucherBaseline(vouchers: number, settings: StackSettings) {
  await withClient(BENCH_DATABASES.baseline, async (db) => {
    await db.query(`DROP SCHEMA public CASCADE; CREATE SCHEMA public;`);
    await db.query(BASELINE_SCHEMA);
    await db.query(FAIR_RATE_LIMIT_TABLE);
    await seedVoucherBaseline(db, 2 * vouchers);
  });
  return startProcess({
    name: 'redeem baseline',
    args: scriptArgs('bench/baselines/voucher-service.ts'),
    env: { ...baselineDbEnv(), ...coordinationEnv(settings, VOUCHER_BASELINE_KEY_PREFIX) },
    port: await freePort(),
    ready: httpReady('/ready'),
  });
}

/** An empty Nest route on the apps' HTTP platform (see baselines/nest-floor.ts), beside the verify baseline. */
export async function startFrameworkFloor() {
  return startProcess({
    name: 'framework floor',
    args: scriptArgs('bench/baselines/nest-floor.ts'),
    env: {},
    port: await freePort(),
    ready: httpReady('/ready'),
  });
}

export async function runVoucherPaths(
  section: VoucherSection,
  settings: StackSettings,
  report: Report,
  selected: (path: string) => boolean,
  durationSeconds: number,
  driver: LoadDriver,
): Promise<void> {
  const run: VoucherRun = { app: section.app, world: section.world, report, durationSeconds, driver };
  if (selected('issue')) await benchIssue(run);
  // The sealed redeem is measured against the plain redeem of the same run, so it brings that along.
  if (!selected('verify') && !selected('redeem') && !selected('sealed-redeem')) return;
  // Enough for the whole duration at the rates seen so far (about 400–1 100 redeems/s), so the redeem
  // figure is not taken over the first few seconds only.
  const vouchers = await voucherSupply(section, Math.max(2000, 1500 * durationSeconds), 3 * durationSeconds);
  // The baseline gets more vouchers than it can redeem in the time, so it never runs dry.
  const baselineVouchers = Math.max(20_000, 4000 * durationSeconds);
  const baseline = await startVoucherBaseline(baselineVouchers, settings);
  const floor = await startFrameworkFloor();
  let plainRedeem;
  try {
    const before = section.used.size;
    plainRedeem = await benchVerifyAndRedeem(
      run,
      vouchers,
      section.used,
      { port: baseline.port, pid: baseline.pid, vouchers: baselineVouchers },
      { port: floor.port, pid: floor.pid },
    );
    section.redeemRate = (section.used.size - before) / durationSeconds;
  } finally {
    await floor.stop();
    await baseline.stop();
  }
  if (selected('sealed-redeem')) {
    const sealable = await voucherSupply(section, Math.max(2000, 1000 * durationSeconds), 3 * durationSeconds);
    await benchSealedRedeem(run, sealable, section.used, plainRedeem);
  }
}

/** Redeem, verify and issue once each, for the statement counts (see probe.ts). */
export function voucherProbeRequests(section: VoucherSection, vouchers: HeldVoucher[]) {
  return (app: BenchProcess): ProbedRequest[] => {
    const api = apiClient(app.port);
    const { world } = section;
    const expect = async (status: number, call: Promise<{ status: number; json: unknown }>) => {
      const res = await call;
      if (res.status !== status)
        throw new Error(`probe: expected ${status}, got ${res.status} ${JSON.stringify(res.json)}`);
    };
    const nextIssue = issueRequests(world, world.manyTemplates);
    const redeemed = vouchers.splice(0, 2);
    for (const voucher of redeemed) section.used.add(voucher.id);
    return [
      {
        name: 'redeem',
        send: (attempt) =>
          expect(
            201,
            api.raw(
              'POST',
              `${VOUCHER_API}/vouchers/redeem`,
              world.appToken,
              JSON.parse(redeemBody(redeemed[attempt].qrToken, `probe-${attempt}`)),
              {
                'idempotency-key': `probe-redeem-${Date.now()}-${attempt}`,
              },
            ),
          ),
      },
      {
        name: 'verify',
        send: () =>
          expect(
            200,
            api.raw(
              'POST',
              `${VOUCHER_API}/vouchers/verify`,
              world.appToken,
              JSON.parse(verifyBody(vouchers[0].qrToken)),
            ),
          ),
      },
      {
        name: 'issue',
        send: () => {
          const request = nextIssue();
          return expect(
            201,
            api.raw('POST', request.path, world.appToken, JSON.parse(request.body ?? '{}'), {
              'idempotency-key': request.headers?.['idempotency-key'] ?? '',
            }),
          );
        },
      },
    ];
  };
}
