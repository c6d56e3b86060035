import { Database, loadConfig, poolConfig } from '@app/platform';
import { createTestDatabase, TestDatabase, testDatabaseSettings } from '@app/testing';
import { CompactEncrypt, exportJWK, generateKeyPair, importJWK } from 'jose';
import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { DEV_SEALING_KEY } from '../src/config/sealing-keys';
import { VoucherConfig } from '../src/config/voucher.config';
import { voucherMigrations } from '../src/database/migrations';
import { SealCipher } from '../src/sealed-transport/seal-cipher';
import { SealedRequestIdsStore } from '../src/sealed-transport/sealed-request-ids.store';
import { SealedTransportService } from '../src/sealed-transport/sealed-transport.service';

/** The sealed-transport service on a database of its own, without an HTTP server, for unit tests. */
export interface SealedUnit {
  config: VoucherConfig;
  service: SealedTransportService;
  close(): Promise<void>;
}

export async function startSealedUnit(env: Record<string, string> = {}): Promise<SealedUnit> {
  const database: TestDatabase = await createTestDatabase('voucher', voucherMigrations);
  const pool = new Database(new Pool(poolConfig(testDatabaseSettings(database.name, 2))), 'named');
  const config = loadConfig(VoucherConfig, { NODE_ENV: 'test', SEALED_TRANSPORT: 'optional', ...env });
  const service = new SealedTransportService(new SealCipher(config), new SealedRequestIdsStore(pool), config);
  return {
    config,
    service,
    async close() {
      await pool.end();
      await database.drop();
    },
  };
}

/** A plaintext of a sealed call as a client makes it; `overrides` replace or (undefined) drop members. */
export async function callPlaintext(overrides: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const answer = await generateKeyPair('ECDH-ES+A256KW', { crv: 'P-256', extractable: true });
  const call: Record<string, unknown> = {
    method: 'POST',
    path: '/api/v1/open-platform/vouchers/redeem',
    headers: { authorization: 'Bearer sop_x', 'idempotency-key': 'key-1' },
    body: '{"a":1}',
    iat: Math.floor(Date.now() / 1000),
    jti: randomBytes(18).toString('base64url'),
    response_key: await exportJWK(answer.publicKey),
    ...overrides,
  };
  return Object.fromEntries(Object.entries(call).filter(([, value]) => value !== undefined));
}

/** Seals `plaintext` (an object as JSON, a string as it is) to the development key. */
export async function sealToService(plaintext: object | string): Promise<string> {
  const { d: _private, ...publicJwk } = DEV_SEALING_KEY.jwk;
  const text = typeof plaintext === 'string' ? plaintext : JSON.stringify(plaintext);
  return new CompactEncrypt(Buffer.from(text))
    .setProtectedHeader({ alg: 'ECDH-ES+A256KW', enc: 'A256GCM', kid: DEV_SEALING_KEY.kid })
    .encrypt(await importJWK(publicJwk, 'ECDH-ES+A256KW'));
}
