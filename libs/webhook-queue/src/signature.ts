import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Service-Signature';
export const SIGNATURE_V2_HEADER = 'X-Service-Signature-V2';
export const TIMESTAMP_HEADER = 'X-Service-Timestamp';
export const UPDATE_ID_HEADER = 'X-Service-Update-Id';
/** How far X-Service-Timestamp may be from the receiver's clock (spec 8). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

function hmacHex(secret: string, parts: Array<string | Buffer>): string {
  const hmac = createHmac('sha256', secret);
  for (const part of parts) hmac.update(part);
  return hmac.digest('hex');
}

export interface WebhookSignatures {
  v1: string;
  v2: string;
  timestamp: string;
}

/** Both signatures of spec 6.3 over the exact bytes that are sent. */
export function signWebhook(secret: string, rawBody: Buffer, timestampSeconds: number): WebhookSignatures {
  const timestamp = String(timestampSeconds);
  return {
    v1: `sha256=${hmacHex(secret, [rawBody])}`,
    v2: `sha256=${hmacHex(secret, [timestamp, '.', rawBody])}`,
    timestamp,
  };
}

function sameSignature(expected: string, received: string | undefined): boolean {
  if (!received) return false;
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(received, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Receiver side of V1: HMAC of the raw bytes, compared in constant time. */
export function verifyWebhookSignatureV1(secret: string, rawBody: Buffer, header: string | undefined): boolean {
  return sameSignature(`sha256=${hmacHex(secret, [rawBody])}`, header);
}

/** Receiver side of V2: timestamp within the tolerance, then HMAC of `timestamp.rawBody` in constant time. */
export function verifyWebhookSignatureV2(
  secret: string,
  rawBody: Buffer,
  header: string | undefined,
  timestamp: string | undefined,
  nowSeconds = Math.floor(Date.now() / 1000),
  toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS,
): boolean {
  if (!timestamp || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) return false;
  return sameSignature(`sha256=${hmacHex(secret, [timestamp, '.', rawBody])}`, header);
}
