import { signWebhook } from '@app/bot-delivery';
import { checkDelivery, DeliveryRequest } from './webhook-delivery-check';

const SECRET = 'dev_secret-1';
const NOW = 1_767_225_600;

function signed(body: string, overrides: Record<string, string | undefined> = {}, at = NOW): DeliveryRequest {
  const raw = Buffer.from(body);
  const signatures = signWebhook(SECRET, raw, at);
  const headers: Record<string, string | undefined> = {
    'x-service-signature': signatures.v1,
    'x-service-signature-v2': signatures.v2,
    'x-service-timestamp': signatures.timestamp,
    'x-service-update-id': 'u-1',
    ...overrides,
  };
  return { method: 'POST', headers, rawBody: raw };
}

const UPDATE = '{"update_id":"u-1","type":"message","bot_id":"b1","message":{"text":"hi"}}';

describe('checking a webhook request as a receiver should', () => {
  it('accepts a request whose signatures, timestamp and update id header agree, and parses the Update', () => {
    expect(checkDelivery(SECRET, signed(UPDATE), NOW + 3)).toEqual({
      accepted: true,
      status: 200,
      update: JSON.parse(UPDATE),
      timestampAgeSeconds: 3,
    });
  });

  it('answers 401 when the V1 signature was made with another secret', () => {
    const verdict = checkDelivery('another', signed(UPDATE), NOW);
    expect(verdict).toMatchObject({
      accepted: false,
      status: 401,
      problem: expect.stringMatching(/^X-Service-Signature /),
    });
  });

  it('answers 401 when the timestamp is missing, not Unix seconds, or more than 300 s away', () => {
    expect(checkDelivery(SECRET, signed(UPDATE, { 'x-service-timestamp': undefined }), NOW)).toMatchObject({
      status: 401,
      problem: 'X-Service-Timestamp is missing or not Unix seconds',
    });
    expect(checkDelivery(SECRET, signed(UPDATE, {}, NOW - 301), NOW)).toMatchObject({
      status: 401,
      problem: 'X-Service-Timestamp is 301 s from this clock, outside ±300 s',
    });
    expect(checkDelivery(SECRET, signed(UPDATE, {}, NOW + 301), NOW)).toMatchObject({ status: 401 });
    expect(checkDelivery(SECRET, signed(UPDATE, {}, NOW - 300), NOW)).toMatchObject({ accepted: true });
  });

  it('answers 401 when the V2 signature does not cover this timestamp', () => {
    const request = signed(UPDATE, { 'x-service-timestamp': String(NOW + 1) });
    expect(checkDelivery(SECRET, request, NOW)).toMatchObject({
      status: 401,
      problem: 'X-Service-Signature-V2 does not match "timestamp.body"',
    });
  });

  it('answers 400 when the signed body is not JSON or its update_id differs from the header, 405 for a GET', () => {
    expect(checkDelivery(SECRET, signed('not json'), NOW)).toMatchObject({ status: 400 });
    expect(checkDelivery(SECRET, signed(UPDATE, { 'x-service-update-id': 'u-2' }), NOW)).toMatchObject({
      status: 400,
      problem: "X-Service-Update-Id differs from the body's update_id",
    });
    expect(checkDelivery(SECRET, { ...signed(UPDATE), method: 'GET' }, NOW)).toMatchObject({ status: 405 });
  });
});
