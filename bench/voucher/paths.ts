import { randomUUID } from 'node:crypto';
import { BASELINE_APP_TOKEN, baselineQrToken } from '../baselines/schema';
import { describeFailures, LoadDriver, LoadResult, runLoad } from '../lib/load';
import type { BenchProcess } from '../lib/processes';
import { Report, rowFromLoad } from '../lib/report';
import { HeldVoucher, issueRequests, redeemBody, verifyBody, VOUCHER_API, VoucherWorld } from './world';

export interface VoucherRun {
  app: BenchProcess;
  world: VoucherWorld;
  report: Report;
  durationSeconds: number;
  /** The load generator of verify, redeem and their baseline (`--driver`); issue keeps autocannon. */
  driver: LoadDriver;
}

/** Where a verify or redeem load goes besides the app's own route, and what drives it. */
export interface PathLoadOptions {
  serverPid?: number;
  path?: string;
  driver?: LoadDriver;
}

/** Issue to one template, then spread over many; the one/many ratio shows contention on the template row. */
export async function benchIssue(run: VoucherRun): Promise<{ one: LoadResult; many: LoadResult }> {
  const { app, world } = run;
  const one = await runLoad({
    port: app.port,
    next: issueRequests(world, [world.oneTemplate]),
    durationSeconds: run.durationSeconds,
    serverPid: app.pid,
  });
  const many = await runLoad({
    port: app.port,
    next: issueRequests(world, world.manyTemplates),
    durationSeconds: run.durationSeconds,
    serverPid: app.pid,
  });
  run.report.add({
    ...rowFromLoad('issue, one template', one),
    baselinePerSecond: many.perSecond,
    note: `baseline = issue over ${world.manyTemplates.length} templates (target ≥ 0.7×) ${describeFailures(one)}`,
  });
  run.report.add(
    rowFromLoad(`issue, ${world.manyTemplates.length} templates`, many, undefined, describeFailures(many)),
  );
  return { one, many };
}

/** Issues `count` more vouchers as fast as the app allows (preparation, not measured). */
export async function issueMore(
  app: BenchProcess,
  world: VoucherWorld,
  count: number,
  maxSeconds: number,
): Promise<void> {
  if (count <= 0) return;
  await runLoad({
    port: app.port,
    next: issueRequests(world, world.manyTemplates),
    durationSeconds: maxSeconds,
    maxRequests: count,
  });
}

export async function redeemLoad(
  port: number,
  token: string,
  qrTokens: string[],
  durationSeconds: number,
  { serverPid, path = `${VOUCHER_API}/vouchers/redeem`, driver }: PathLoadOptions = {},
): Promise<LoadResult & { consumed: number }> {
  const run = randomUUID().slice(0, 8);
  let i = 0;
  const result = await runLoad({
    port,
    durationSeconds,
    serverPid,
    driver,
    // Every redeem consumes its voucher: the run ends early rather than redeem one twice.
    maxRequests: qrTokens.length,
    next: () => {
      const n = i++;
      return {
        method: 'POST',
        path,
        headers: { authorization: `Bearer ${token}`, 'idempotency-key': `redeem-${run}-${n}` },
        body: redeemBody(qrTokens[n % qrTokens.length], `order-${run}-${n}`),
      };
    },
  });
  // wrk takes every request before the load starts: all of them count as used, so none is sent twice.
  return { ...result, consumed: Math.min(i, qrTokens.length) };
}

export function verifyLoad(
  port: number,
  token: string,
  qrTokens: string[],
  durationSeconds: number,
  { serverPid, path = `${VOUCHER_API}/vouchers/verify`, driver }: PathLoadOptions = {},
): Promise<LoadResult> {
  let i = 0;
  return runLoad({
    port,
    durationSeconds,
    serverPid,
    driver,
    repeatable: true,
    next: () => ({
      method: 'POST',
      path,
      headers: { authorization: `Bearer ${token}` },
      body: verifyBody(qrTokens[i++ % qrTokens.length]),
    }),
  });
}

/**
 * Verify then redeem, each against its baseline in the same run, and the framework floor against the
 * verify baseline; then the fair baseline's verify and redeem (the `fair ratio`), after the app's loads
 * so that those meet the same sequence as before the fair baseline existed; redeemed vouchers join `used`. Answers the redeem's figures, the baseline of the
 * sealed redeem.
 */
export async function benchVerifyAndRedeem(
  run: VoucherRun,
  vouchers: HeldVoucher[],
  used: Set<string>,
  baseline: { port: number; pid: number; vouchers: number },
  floor: { port: number; pid: number },
): Promise<LoadResult> {
  const { app, world } = run;
  const qr = vouchers.map((v) => v.qrToken);
  const baselineQr = Array.from({ length: baseline.vouchers }, (_, i) => baselineQrToken(i));

  const { driver } = run;
  const verify = await verifyLoad(app.port, world.appToken, qr, run.durationSeconds, { serverPid: app.pid, driver });
  const verifyBaseline = await verifyLoad(baseline.port, BASELINE_APP_TOKEN, baselineQr, run.durationSeconds, {
    serverPid: baseline.pid,
    path: '/verify',
    driver,
  });
  // The same requests to a route that does nothing: the ratio no Nest route can pass on this machine.
  const floorLoad = await verifyLoad(floor.port, BASELINE_APP_TOKEN, baselineQr, run.durationSeconds, {
    serverPid: floor.pid,
    path: '/verify',
    driver,
  });

  const redeemBaseline = await redeemLoad(baseline.port, BASELINE_APP_TOKEN, baselineQr, run.durationSeconds, {
    serverPid: baseline.pid,
    path: '/redeem',
    driver,
  });
  const redeem = await redeemLoad(app.port, world.appToken, qr, run.durationSeconds, { serverPid: app.pid, driver });
  for (const voucher of vouchers.slice(0, redeem.consumed)) used.add(voucher.id);
  // The fair baseline runs last, so the app's paths meet the same sequence of loads as before it existed.
  const verifyFair = await verifyLoad(baseline.port, BASELINE_APP_TOKEN, baselineQr, run.durationSeconds, {
    serverPid: baseline.pid,
    path: '/fair/verify',
    driver,
  });
  // The fair redeem has vouchers of its own, the second half of the baseline's.
  const redeemFair = await redeemLoad(
    baseline.port,
    BASELINE_APP_TOKEN,
    Array.from({ length: baseline.vouchers }, (_, i) => baselineQrToken(baseline.vouchers + i)),
    run.durationSeconds,
    { serverPid: baseline.pid, path: '/fair/redeem', driver },
  );
  run.report.add({
    ...rowFromLoad('verify', verify, verifyBaseline, describeFailures(verify)),
    fairBaselinePerSecond: verifyFair.perSecond,
  });
  run.report.add(
    rowFromLoad('framework floor: an empty Nest route', floorLoad, verifyBaseline, 'baseline = verify baseline'),
  );
  const notes = [describeFailures(redeem)];
  if (redeem.seconds < run.durationSeconds - 1) notes.push(`ran out of vouchers after ${redeem.seconds.toFixed(1)} s`);
  if (redeemBaseline.seconds < run.durationSeconds - 1) notes.push('baseline ran out of vouchers');
  if (redeemFair.seconds < run.durationSeconds - 1) notes.push('fair baseline ran out of vouchers');
  const fairFailures = [describeFailures(verifyFair), describeFailures(redeemFair)].filter(Boolean);
  if (fairFailures.length > 0) notes.push(`fair baseline: ${fairFailures.join(', ')}`);
  run.report.add({
    ...rowFromLoad('redeem', redeem, redeemBaseline, notes.filter(Boolean).join('; ')),
    fairBaselinePerSecond: redeemFair.perSecond,
  });
  run.report.section(
    'redeem baseline',
    `baseline CPU ${redeemBaseline.cpuMicrosPerRequest?.toFixed(0)} µs/req, p50 ${redeemBaseline.p50.toFixed(1)} ms, p99 ${redeemBaseline.p99.toFixed(1)} ms; ` +
      `verify baseline CPU ${verifyBaseline.cpuMicrosPerRequest?.toFixed(0)} µs/req; ` +
      `fair baseline (validation, rate-limit count, log line, histogram): redeem ${redeemFair.perSecond.toFixed(0)} req/s, ` +
      `CPU ${redeemFair.cpuMicrosPerRequest?.toFixed(0)} µs/req, verify ${verifyFair.perSecond.toFixed(0)} req/s, ` +
      `CPU ${verifyFair.cpuMicrosPerRequest?.toFixed(0)} µs/req`,
  );
  return redeem;
}
