import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import {
  signStandardWebhook,
  signWebhook,
  standardWebhookSecret,
  verifyWebhookSignatureV1,
  verifyWebhookSignatureV2,
  webhookSignatureHeaders,
} from './signature';

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

describe('signature headers', () => {
  it('names every header as the spec and Standard Webhooks do', () => {
    const raw = Buffer.from('{}');
    const headers = webhookSignatureHeaders(['new', 'old'], raw, 'u-7', 1_700_000_000);
    expect(Object.keys(headers).sort()).toEqual([
      'X-Service-Signature',
      'X-Service-Signature-Previous',
      'X-Service-Signature-V2',
      'X-Service-Signature-V2-Previous',
      'X-Service-Timestamp',
      'X-Service-Update-Id',
      'webhook-id',
      'webhook-signature',
      'webhook-timestamp',
    ]);
    expect(headers['X-Service-Update-Id']).toBe('u-7');
    expect(headers['X-Service-Timestamp']).toBe('1700000000');
    expect(headers['X-Service-Signature-V2']).toBe(signWebhook('new', raw, 1_700_000_000).v2);
  });
});

describe('V2 timestamps', () => {
  const raw = Buffer.from('{"update_id":"u-1"}', 'utf8');
  const secret = 'abc_DEF-123';
  /** A V2 signature that is right for whatever timestamp text it is given, so only the timestamp checks can refuse it. */
  const v2Over = (timestamp: string) =>
    `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(raw).digest('hex')}`;

  it("judges the timestamp against the receiver's clock when given no time", () => {
    const now = Math.floor(Date.now() / 1000);
    expect(verifyWebhookSignatureV2(secret, raw, v2Over(`${now}`), `${now}`)).toBe(true);
    expect(verifyWebhookSignatureV2(secret, raw, v2Over(`${now - 3600}`), `${now - 3600}`)).toBe(false);
  });

  it('accepts a timestamp exactly 300 s away on either side, and refuses one a second further', () => {
    const now = 1_700_000_000;
    for (const at of [now - 300, now + 300])
      expect(verifyWebhookSignatureV2(secret, raw, v2Over(`${at}`), `${at}`, now)).toBe(true);
    for (const at of [now - 301, now + 301])
      expect(verifyWebhookSignatureV2(secret, raw, v2Over(`${at}`), `${at}`, now)).toBe(false);
    expect(verifyWebhookSignatureV2(secret, raw, v2Over(`${now - 10}`), `${now - 10}`, now, 5)).toBe(false);
  });

  it('refuses, though its HMAC matches, a timestamp that is not 1 to 12 decimal digits', () => {
    const now = 1_700_000_000;
    for (const timestamp of [
      '1700000000.5',
      ' 1700000000',
      '1700000000 ',
      '1700000000\n',
      '0x6553F100',
      '17e8',
      '0001700000000',
      '+1700000000',
      '',
    ]) {
      expect(Math.abs(Number(timestamp) - now) <= 300 || timestamp === '').toBe(true);
      expect(verifyWebhookSignatureV2(secret, raw, v2Over(timestamp), timestamp, now)).toBe(false);
    }
    expect(verifyWebhookSignatureV2(secret, raw, v2Over('1700000000'), undefined, now)).toBe(false);
    expect(verifyWebhookSignatureV2(secret, raw, v2Over('5'), '5', 0)).toBe(true);
  });
});

describe('Standard Webhooks signatures', () => {
  const raw = Buffer.from('{"update_id":"u-1","text":"héllo"}', 'utf8');
  const id = '6f1c1f43-93a1-4f4e-9d33-5a2b7d1c0e11';

  it('signs "id.timestamp.body" with the secret_token bytes as v1,<base64>', () => {
    const expected = createHmac('sha256', 'abc_DEF-123')
      .update(Buffer.concat([Buffer.from(`${id}.1700000000.`), raw]))
      .digest('base64');
    expect(signStandardWebhook('abc_DEF-123', id, '1700000000', raw)).toBe(`v1,${expected}`);
    expect(standardWebhookSecret('abc_DEF-123')).toBe(`whsec_${Buffer.from('abc_DEF-123').toString('base64')}`);
  });

  it('keys the HMAC with the UTF-8 bytes of a secret that is not ASCII', () => {
    const expected = createHmac('sha256', Buffer.from('sécret-☃', 'utf8'))
      .update(Buffer.concat([Buffer.from(`${id}.1700000000.`), raw]))
      .digest('base64');
    expect(signStandardWebhook('sécret-☃', id, '1700000000', raw)).toBe(`v1,${expected}`);
    expect(() =>
      new Webhook(standardWebhookSecret('sécret-☃')).verify(raw, {
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': signStandardWebhook('sécret-☃', id, String(Math.floor(Date.now() / 1000)), raw),
      }),
    ).not.toThrow();
  });

  it('sends one signature per header without a rotation, and both secrets while one overlaps', () => {
    const single = webhookSignatureHeaders(['new'], raw, id, 1_700_000_000);
    expect(single['webhook-id']).toBe(id);
    expect(single['webhook-timestamp']).toBe('1700000000');
    expect(single['webhook-signature'].split(' ')).toHaveLength(1);
    expect(single['X-Service-Signature-Previous']).toBeUndefined();

    const rotating = webhookSignatureHeaders(['new', 'old'], raw, id, 1_700_000_000);
    expect(rotating['webhook-signature']).toBe(
      `${signStandardWebhook('new', id, '1700000000', raw)} ${signStandardWebhook('old', id, '1700000000', raw)}`,
    );
    expect(verifyWebhookSignatureV1('new', raw, rotating['X-Service-Signature'])).toBe(true);
    expect(verifyWebhookSignatureV1('old', raw, rotating['X-Service-Signature-Previous'])).toBe(true);
    expect(
      verifyWebhookSignatureV2('old', raw, rotating['X-Service-Signature-V2-Previous'], '1700000000', 1_700_000_000),
    ).toBe(true);
  });

  it('gives the bytes the standardwebhooks library signs for every body the service sends (UTF-8 JSON)', () => {
    const bodies = [
      raw,
      Buffer.from(JSON.stringify({ update_id: 'u-2', text: 'emoji 🎉, CJK 漢字, RTL שלום, NUL \u0000' }), 'utf8'),
      Buffer.from(JSON.stringify({ update_id: 'u-3', text: 'x'.repeat(70_000) }), 'utf8'),
      Buffer.alloc(0),
    ];
    const library = new Webhook(standardWebhookSecret('abc_DEF-123'));
    for (const body of bodies) {
      expect(signStandardWebhook('abc_DEF-123', id, '1700000000', body)).toBe(
        library.sign(id, new Date(1_700_000_000_000), body),
      );
    }
  });

  it('signs a UTF-8 body as the standardwebhooks library does, with node:crypto', () => {
    // The library's SHA-256 is JavaScript, about ten times the CPU per delivery: the dispatcher signs
    // with node:crypto, and this pins that both give the same header for what the service sends.
    for (const secret of ['abc_DEF-123', 'sécret-☃']) {
      const library = new Webhook(standardWebhookSecret(secret)).sign(id, new Date(1_700_000_000_000), raw);
      expect(signStandardWebhook(secret, id, '1700000000', raw)).toBe(library);
    }
  });

  it('signs the bytes themselves where the library would sign their UTF-8 decoding instead', () => {
    // The library turns a Buffer into a string before signing, so bytes that are not UTF-8 come out
    // as U+FFFD and its signature covers other bytes than the ones sent (why it does not sign here).
    const notUtf8 = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
    const ours = signStandardWebhook('abc_DEF-123', id, '1700000000', notUtf8);
    const expected = createHmac('sha256', 'abc_DEF-123')
      .update(Buffer.concat([Buffer.from(`${id}.1700000000.`), notUtf8]))
      .digest('base64');
    expect(ours).toBe(`v1,${expected}`);
    expect(new Webhook(standardWebhookSecret('abc_DEF-123')).sign(id, new Date(1_700_000_000_000), notUtf8)).not.toBe(
      ours,
    );
  });
});
