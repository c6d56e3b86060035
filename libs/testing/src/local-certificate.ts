import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * A self-signed certificate for localhost, 127.0.0.1 and ::1, made with the `selfsigned` package (no
 * openssl CLI needed). A client
 * trusts it by taking the certificate itself as its CA (the dispatcher's WEBHOOK_CA_FILE).
 * Development and tests only: the key is written unencrypted.
 */
export interface LocalCertificate {
  dir: string;
  certFile: string;
  keyFile: string;
  cert: string;
  key: string;
}

const CERT_NAME = 'cert.pem';
const KEY_NAME = 'key.pem';
const DAY_MS = 24 * 60 * 60 * 1000;

function readCertificate(dir: string): LocalCertificate {
  const certFile = join(dir, CERT_NAME);
  const keyFile = join(dir, KEY_NAME);
  return { dir, certFile, keyFile, cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

/**
 * selfsigned only generates asynchronously; a short Node child runs it so that callers (test set-ups,
 * the development certificate of `npm start`) stay synchronous.
 */
const GENERATE = `
const { generate } = require('selfsigned');
const days = Number(process.argv[1]);
const notBeforeDate = new Date(Date.now() - 60_000);
generate([{ name: 'commonName', value: 'localhost' }], {
  keyType: 'ec',
  curve: 'P-256',
  algorithm: 'sha256',
  notBeforeDate,
  notAfterDate: new Date(notBeforeDate.getTime() + days * 86_400_000),
  extensions: [
    // Its own issuer, as openssl req -x509 makes it: clients trust it by taking it as their CA.
    { name: 'basicConstraints', cA: true },
    { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }] },
  ],
}).then((pems) => process.stdout.write(JSON.stringify({ cert: pems.cert, key: pems.private })));
`;

/** Writes a new key and certificate, valid for `days`, into the existing directory `dir`. */
export function createLocalCertificate(dir: string, days: number): LocalCertificate {
  const { cert, key } = JSON.parse(
    execFileSync(process.execPath, ['-e', GENERATE, String(days)], { cwd: __dirname, encoding: 'utf8' }),
  ) as { cert: string; key: string };
  writeFileSync(join(dir, KEY_NAME), key, { mode: 0o600 });
  writeFileSync(join(dir, CERT_NAME), cert);
  return readCertificate(dir);
}

function usable(dir: string): boolean {
  if (!existsSync(join(dir, CERT_NAME)) || !existsSync(join(dir, KEY_NAME))) return false;
  try {
    const validTo = Date.parse(new X509Certificate(readFileSync(join(dir, CERT_NAME))).validTo);
    return validTo - Date.now() > DAY_MS;
  } catch {
    return false;
  }
}

/**
 * The certificate kept in `dir`, made anew (valid for `days`) when it is missing, unreadable or
 * expires within a day. A new one is built beside `dir` and renamed into place, so processes that
 * ask at the same time all end up with one matching key and certificate. `created` says whether
 * this call made it: a process that trusted the previous one must be restarted.
 */
export function ensureLocalCertificate(dir: string, days = 30): LocalCertificate & { created: boolean } {
  if (usable(dir)) return { ...readCertificate(dir), created: false };
  mkdirSync(dirname(dir), { recursive: true });
  const building = mkdtempSync(join(dirname(dir), '.certificate-'));
  try {
    createLocalCertificate(building, days);
    if (existsSync(dir) && !usable(dir)) rmSync(dir, { recursive: true, force: true });
    renameSync(building, dir);
    return { ...readCertificate(dir), created: true };
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    // Another process put its certificate in place first: use that one.
    if (usable(dir)) return { ...readCertificate(dir), created: false };
    throw error;
  }
}

let certificate: LocalCertificate | undefined;

/** A throwaway certificate for this test process, removed when it exits. */
export function testCertificate(): LocalCertificate {
  if (certificate) return certificate;
  const dir = mkdtempSync(join(tmpdir(), 'webhook-receiver-'));
  certificate = createLocalCertificate(dir, 1);
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return certificate;
}
