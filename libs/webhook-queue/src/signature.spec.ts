import { createHmac } from 'node:crypto';
import { signWebhook, verifyWebhookSignatureV1, verifyWebhookSignatureV2 } from './signature';

describe('webhook signatures', () => {
  const raw = Buffer.from('{"update_id":"u-1","text":"héllo"}', 'utf8');
  const secret = 'abc_DEF-123';

  it('signs V1 over the raw bytes and V2 over "timestamp.rawBody" as sha256=<hex>', () => {
    const signed = signWebhook(secret, raw, 1_700_000_000);
    expect(signed.v1).toBe(`sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`);
    expect(signed.v2).toBe(
      `sha256=${createHmac('sha256', secret)
        .update(Buffer.concat([Buffer.from('1700000000.'), raw]))
        .digest('hex')}`,
    );
    expect(signed.timestamp).toBe('1700000000');
  });

  it('verifies both signatures on the exact bytes and rejects any changed byte or secret', () => {
    const signed = signWebhook(secret, raw, 1_700_000_000);
    expect(verifyWebhookSignatureV1(secret, raw, signed.v1)).toBe(true);
    expect(verifyWebhookSignatureV2(secret, raw, signed.v2, signed.timestamp, 1_700_000_100)).toBe(true);
    const changed = Buffer.from(raw);
    changed[2] ^= 1;
    expect(verifyWebhookSignatureV1(secret, changed, signed.v1)).toBe(false);
    expect(verifyWebhookSignatureV1('other', raw, signed.v1)).toBe(false);
    expect(verifyWebhookSignatureV1(secret, raw, undefined)).toBe(false);
    expect(verifyWebhookSignatureV1(secret, raw, 'sha256=short')).toBe(false);
  });

  it('rejects a V2 timestamp outside the 300 s window, or one that is not Unix seconds', () => {
    const signed = signWebhook(secret, raw, 1_700_000_000);
    expect(verifyWebhookSignatureV2(secret, raw, signed.v2, signed.timestamp, 1_700_000_301)).toBe(false);
    expect(verifyWebhookSignatureV2(secret, raw, signed.v2, signed.timestamp, 1_699_999_699)).toBe(false);
    expect(verifyWebhookSignatureV2(secret, raw, signed.v2, '1700000000.5', 1_700_000_000)).toBe(false);
    expect(verifyWebhookSignatureV2(secret, raw, signed.v2, '1700000001', 1_700_000_000)).toBe(false);
  });
});
