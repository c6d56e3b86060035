import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import { SEALED_ALG, SEALED_JWKS_ROUTE, SEALED_ROUTE, sealCall } from '../../clients/voucher-api/sealed';
import { describeFailures, LoadResult, runLoad } from '../lib/load';
import { rowFromLoad } from '../lib/report';
import type { VoucherRun } from './paths';
import { availableVouchers, HeldVoucher, redeemBody, VOUCHER_API } from './world';

/** The service's newest sealing key, read from its JWKS as a client reads it. */
async function serviceKey(port: number) {
  const response = await fetch(`http://127.0.0.1:${port}${SEALED_JWKS_ROUTE}`);
  if (!response.ok) throw new Error(`sealed redeem: the JWKS answered ${response.status}`);
  const [newest] = ((await response.json()) as { keys: Array<JWK & { kid: string }> }).keys;
  return { kid: newest.kid, key: await importJWK(newest, SEALED_ALG) };
}

/**
 * The redeem of `benchVerifyAndRedeem`, sealed: each request a compact JWE of a redeem of a fresh voucher
 * with its own key, on `POST /sealed`. The seals are made before the load (a till seals on its own CPU),
 * so the figures are the server's: opening, the same redeem, sealing the answer. One answer key serves
 * every seal of the run; the server does the same key agreement per answer either way.
 */
export async function benchSealedRedeem(
  run: VoucherRun,
  vouchers: HeldVoucher[],
  used: Set<string>,
  plainRedeem: LoadResult,
): Promise<void> {
  const { app, world } = run;
  const service = await serviceKey(app.port);
  const answerKey = await exportJWK((await generateKeyPair(SEALED_ALG, { crv: 'P-256' })).publicKey);
  const batch = randomUUID().slice(0, 8);
  const iat = Math.floor(Date.now() / 1000);
  const seals = await Promise.all(
    vouchers.map((voucher, n) =>
      sealCall(
        {
          method: 'POST',
          path: `${VOUCHER_API}/vouchers/redeem`,
          headers: { authorization: `Bearer ${world.appToken}`, 'idempotency-key': `sealed-${batch}-${n}` },
          body: redeemBody(voucher.qrToken, `sealed-order-${batch}-${n}`),
          iat,
          jti: `bench-${batch}-${n}-${randomUUID()}`,
          response_key: answerKey,
        },
        service.key,
        service.kid,
      ),
    ),
  );
  let next = 0;
  const sealed = await runLoad({
    port: app.port,
    durationSeconds: run.durationSeconds,
    serverPid: app.pid,
    // The same load generator as the plain redeem it is compared with.
    driver: run.driver,
    maxRequests: seals.length,
    next: () => ({
      method: 'POST',
      path: SEALED_ROUTE,
      headers: { 'content-type': 'application/jose' },
      body: seals[next++ % seals.length],
    }),
  });
  const consumed = vouchers.slice(0, Math.min(next, vouchers.length));
  for (const voucher of consumed) used.add(voucher.id);
  run.report.add(rowFromLoad('sealed redeem', sealed, plainRedeem, await sealedNotes(run, sealed, consumed)));
}

/**
 * Every sealed answer is a 200, whatever the redeem inside answered, so the redeems are counted where
 * they show: the vouchers that are no longer available in their holders' wallets.
 */
async function sealedNotes(run: VoucherRun, sealed: LoadResult, consumed: HeldVoucher[]): Promise<string> {
  const stillAvailable = new Set((await availableVouchers(run.world, new Set())).map((voucher) => voucher.id));
  const redeemed = consumed.filter((voucher) => !stillAvailable.has(voucher.id)).length;
  const notes = ['baseline = plain redeem of this run'];
  if (redeemed < sealed.ok) notes.push(`${sealed.ok - redeemed} sealed answers held no redemption`);
  const failures = describeFailures(sealed);
  if (failures) notes.push(failures);
  if (sealed.seconds < run.durationSeconds - 1) notes.push(`ran out of vouchers after ${sealed.seconds.toFixed(1)} s`);
  return notes.join('; ');
}
