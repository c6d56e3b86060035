import { loadConfig } from '@app/platform';
import { VoucherConfig } from '../config/voucher.config';
import { CODE_ALPHABET, normalizeCode, VoucherCredentials } from './voucher-credentials';

describe('VoucherCredentials', () => {
  const credentials = new VoucherCredentials(loadConfig(VoucherConfig, { CREDENTIAL_KEY: 'ab'.repeat(32) }));

  it('generates a QR token of at least 128 bits and a six-character code without look-alike characters', () => {
    const { qrToken, code } = credentials.generate();
    expect(qrToken).toMatch(/^vq_[0-9A-Za-z]{32}$/);
    expect(code).toMatch(/^[A-HJKMNP-Z2-9]{6}$/);
    expect(CODE_ALPHABET).not.toMatch(/[01OIL]/);
  });

  it('round-trips encryption and refuses a ciphertext moved to another voucher', () => {
    const stored = credentials.encrypt('v-1', 'redeem_code', 'ABC234');
    expect(stored).not.toContain('ABC234');
    expect(credentials.decrypt('v-1', 'redeem_code', stored)).toBe('ABC234');
    expect(() => credentials.decrypt('v-2', 'redeem_code', stored)).toThrow();
    expect(() => credentials.decrypt('v-1', 'qr_token', stored)).toThrow();
  });

  it('hashes codes per application, so equal codes of two applications do not collide', () => {
    expect(credentials.codeHash('app-a', 'ABC234')).toMatch(/^[0-9a-f]{64}$/);
    expect(credentials.codeHash('app-a', 'ABC234')).not.toBe(credentials.codeHash('app-b', 'ABC234'));
    expect(credentials.qrTokenHash('vq_x')).toBe(credentials.qrTokenHash('vq_x'));
  });

  it('matches codes ignoring case, spaces and hyphens, and refuses anything that cannot be a code', () => {
    expect(normalizeCode('abc-234')).toBe('ABC234');
    expect(normalizeCode(' a b c 2 3 4 ')).toBe('ABC234');
    expect(normalizeCode('ABC23')).toBeNull();
    expect(normalizeCode('ABC230')).toBeNull();
    expect(normalizeCode('ABCDEFG')).toBeNull();
  });
});
