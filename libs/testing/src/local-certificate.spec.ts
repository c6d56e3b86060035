import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalCertificate, ensureLocalCertificate } from './local-certificate';

describe('local certificates', () => {
  let root: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'local-certificate-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('makes a self-signed certificate for localhost, 127.0.0.1 and ::1 whose key matches it', () => {
    const made = createLocalCertificate(root, 2);
    const x509 = new X509Certificate(made.cert);
    expect(x509.checkHost('localhost')).toBe('localhost');
    expect(x509.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(x509.checkIP('::1')).toBe('::1');
    expect(x509.checkIP('10.0.0.1')).toBeUndefined();
    expect(x509.checkIssued(x509)).toBe(true);
    expect(x509.checkPrivateKey(createPrivateKey(made.key))).toBe(true);
    expect(Date.parse(x509.validTo) - Date.now()).toBeGreaterThan(47 * 3600 * 1000);
  });

  it('keeps a usable certificate and replaces one that expires within a day', () => {
    const dir = join(root, 'dev');
    const first = ensureLocalCertificate(dir);
    expect(first.created).toBe(true);
    const again = ensureLocalCertificate(dir);
    expect(again).toMatchObject({ created: false, cert: first.cert, key: first.key });

    createLocalCertificate(dir, 1);
    const renewed = ensureLocalCertificate(dir);
    expect(renewed.created).toBe(true);
    expect(Date.parse(new X509Certificate(renewed.cert).validTo) - Date.now()).toBeGreaterThan(29 * 24 * 3600 * 1000);
    expect(readdirSync(root)).toEqual(['dev']);
  });
});
