import { loadConfig } from '@app/platform';
import { VoucherConfig } from '../config/voucher.config';
import { VoucherCredentials } from './voucher-credentials';

describe('VoucherCredentials encryption', () => {
  const credentials = new VoucherCredentials(loadConfig(VoucherConfig, {}));

  it('round-trips a credential bound to its voucher and purpose', () => {
    const sealed = credentials.encrypt('v1', 'redeem_code', 'ABC234');
    expect(credentials.decrypt('v1', 'redeem_code', sealed)).toBe('ABC234');
    expect(() => credentials.decrypt('v2', 'redeem_code', sealed)).toThrow();
  });

  it('refuses a stored credential whose tag was cut short, though the shorter tag is a prefix of the true one (defect 10)', () => {
    const [version, iv, tag, body] = credentials.encrypt('v1', 'qr_token', 'vq_secret').split('.');
    const short = Buffer.from(tag, 'base64url').subarray(0, 4).toString('base64url');
    expect(() => credentials.decrypt('v1', 'qr_token', [version, iv, short, body].join('.'))).toThrow();
  });
});
