/**
 * The cost of DB_PREPARED_STATEMENTS=unnamed, what a transaction-mode pooler that keeps no prepared
 * statements needs: verify, redeem and sendMessage on a second instance of voucher-api and bot-api set to
 * unnamed statements, each against the same path on the run's own instance (named: it reaches the
 * server itself), in turns, on the same database. Both go to the server directly, so the ratio is the
 * statements' parsing and planning alone, not a pooler's extra hop.
 */
import { BotSection } from './bots/section';
import { sendMessageRequests } from './bots/world';
import { describeFailures, LoadDriver, LoadResult, runLoad } from './lib/load';
import type { BenchProcess } from './lib/processes';
import { Report, rowFromLoad } from './lib/report';
import { botEnv, StackSettings, startApp, voucherEnv } from './lib/stack';
import { redeemLoad, verifyLoad } from './voucher/paths';
import { VoucherSection, voucherSupply } from './voucher/section';

const UNNAMED = { DB_PREPARED_STATEMENTS: 'unnamed' };
/** Turns of each instance: named, unnamed, unnamed, named, … so a drift in the machine's load falls on both alike. */
const TURNS = 4;

/** Loads run one after another as one: requests and seconds add up, the slowest p99 counts. */
function inSequence(results: LoadResult[]): LoadResult {
  const sum = (pick: (r: LoadResult) => number) => results.reduce((total, r) => total + pick(r), 0);
  const statusCodes: Record<string, number> = {};
  for (const result of results) {
    for (const [code, count] of Object.entries(result.statusCodes))
      statusCodes[code] = (statusCodes[code] ?? 0) + count;
  }
  const ok = sum((r) => r.ok);
  const seconds = sum((r) => r.seconds);
  const cpu = results.every((r) => r.cpuMicrosPerRequest !== null)
    ? sum((r) => (r.cpuMicrosPerRequest ?? 0) * r.ok) / Math.max(ok, 1)
    : null;
  const p50s = results.map((r) => r.p50).sort((a, b) => a - b);
  return {
    ok,
    failed: sum((r) => r.failed),
    statusCodes,
    seconds,
    perSecond: ok / seconds,
    p50: p50s[Math.floor(p50s.length / 2)],
    p99: Math.max(...results.map((r) => r.p99)),
    cpuMicrosPerRequest: cpu,
  };
}

/** `load` on each instance in turns, `seconds` in all for each, halves of it at a time. */
async function inTurns(
  named: BenchProcess,
  unnamed: BenchProcess,
  seconds: number,
  load: (app: BenchProcess, seconds: number) => Promise<LoadResult>,
): Promise<{ named: LoadResult; unnamed: LoadResult }> {
  const each = Math.max(1, Math.round((2 * seconds) / TURNS));
  const runs = new Map<BenchProcess, LoadResult[]>([
    [named, []],
    [unnamed, []],
  ]);
  for (let turn = 0; turn < TURNS; turn++) {
    for (const app of turn % 2 ? [unnamed, named] : [named, unnamed]) runs.get(app)!.push(await load(app, each));
  }
  return { named: inSequence(runs.get(named)!), unnamed: inSequence(runs.get(unnamed)!) };
}

function addPair(report: Report, path: string, { named, unnamed }: { named: LoadResult; unnamed: LoadResult }): void {
  report.add({
    ...rowFromLoad(`${path}, unnamed statements`, unnamed, named),
    note: ['baseline = the same path with named statements, this run', describeFailures(unnamed)]
      .filter(Boolean)
      .join('; '),
  });
}

async function voucherPair(
  section: VoucherSection,
  settings: StackSettings,
  report: Report,
  seconds: number,
  driver: LoadDriver,
) {
  const unnamed = await startApp('voucher-api', { ...voucherEnv(settings), ...UNNAMED });
  try {
    const { world } = section;
    const qr = (await voucherSupply(section, 200, 3 * seconds)).map((voucher) => voucher.qrToken);
    const verify = (app: BenchProcess, turn: number) =>
      verifyLoad(app.port, world.appToken, qr, turn, { serverPid: app.pid, driver });
    addPair(report, 'verify', await inTurns(section.app, unnamed, seconds, verify));

    const redeem = async (app: BenchProcess, turn: number) => {
      const vouchers = await voucherSupply(section, Math.max(1000, 1500 * turn), 3 * turn);
      const qrTokens = vouchers.map((voucher) => voucher.qrToken);
      const result = await redeemLoad(app.port, world.appToken, qrTokens, turn, { serverPid: app.pid, driver });
      for (const voucher of vouchers.slice(0, result.consumed)) section.used.add(voucher.id);
      return result;
    };
    addPair(report, 'redeem', await inTurns(section.app, unnamed, seconds, redeem));
  } finally {
    await unnamed.stop();
  }
}

async function botPair(
  section: BotSection,
  settings: StackSettings,
  report: Report,
  seconds: number,
  driver: LoadDriver,
) {
  const unnamed = await startApp('bot-api', { ...botEnv(settings), ...UNNAMED });
  try {
    const send = (app: BenchProcess, turn: number) =>
      runLoad({
        port: app.port,
        next: sendMessageRequests(section.world.polling),
        durationSeconds: turn,
        serverPid: app.pid,
        driver,
        repeatable: true,
      });
    addPair(report, 'sendMessage', await inTurns(section.app, unnamed, seconds, send));
  } finally {
    await unnamed.stop();
  }
}

export async function benchPreparedStatements(
  sections: { vouchers?: VoucherSection; bots?: BotSection },
  settings: StackSettings,
  report: Report,
  seconds: number,
  driver: LoadDriver,
): Promise<void> {
  if (sections.vouchers) await voucherPair(sections.vouchers, settings, report, seconds, driver);
  if (sections.bots) await botPair(sections.bots, settings, report, seconds, driver);
}
