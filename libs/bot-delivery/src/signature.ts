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
  const a = Buffer.from(expected);
  const b = Buffer.from(received);
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

/** Standard Webhooks (standardwebhooks.com) headers, sent beside the spec's own. */
export const STANDARD_ID_HEADER = 'webhook-id';
export const STANDARD_TIMESTAMP_HEADER = 'webhook-timestamp';
export const STANDARD_SIGNATURE_HEADER = 'webhook-signature';
/** During a secret rotation: V1 and V2 with the previous secret (the spec's headers keep the new one). */
export const PREVIOUS_SIGNATURE_HEADER = 'X-Service-Signature-Previous';
export const PREVIOUS_SIGNATURE_V2_HEADER = 'X-Service-Signature-V2-Previous';

/**
 * The `v1,<base64>` signature of Standard Webhooks: HMAC-SHA256 of `id.timestamp.rawBody`. The key is
 * the secret_token's UTF-8 bytes, the same key as V1 and V2; the standard's libraries take it base64
 * encoded (see standardWebhookSecret).
 */
export function signStandardWebhook(secret: string, id: string, timestamp: string, rawBody: Buffer): string {
  return `v1,${createHmac('sha256', secret).update(`${id}.${timestamp}.`).update(rawBody).digest('base64')}`;
}

/** A secret_token as the Standard Webhooks and Svix libraries take it: `whsec_` and its UTF-8 bytes in base64. */
export function standardWebhookSecret(secretToken: string): string {
  return `whsec_${Buffer.from(secretToken).toString('base64')}`;
}

/**
 * Every signature header of one attempt. `secrets` holds the current secret first and, while a rotation's
 * overlap lasts, the previous one: webhook-signature then lists both (space-separated, as the standard
 * allows) and the previous secret's V1 and V2 go in their own headers.
 */
export function webhookSignatureHeaders(
  secrets: readonly string[],
  rawBody: Buffer,
  updateId: string,
  timestampSeconds: number,
): Record<string, string> {
  const [current, previous] = secrets;
  const signed = signWebhook(current, rawBody, timestampSeconds);
  const headers: Record<string, string> = {
    [SIGNATURE_HEADER]: signed.v1,
    [SIGNATURE_V2_HEADER]: signed.v2,
    [TIMESTAMP_HEADER]: signed.timestamp,
    [UPDATE_ID_HEADER]: updateId,
    [STANDARD_ID_HEADER]: updateId,
    [STANDARD_TIMESTAMP_HEADER]: signed.timestamp,
    [STANDARD_SIGNATURE_HEADER]: signStandardWebhook(current, updateId, signed.timestamp, rawBody),
  };
  if (previous !== undefined) {
    const old = signWebhook(previous, rawBody, timestampSeconds);
    headers[PREVIOUS_SIGNATURE_HEADER] = old.v1;
    headers[PREVIOUS_SIGNATURE_V2_HEADER] = old.v2;
    headers[STANDARD_SIGNATURE_HEADER] += ` ${signStandardWebhook(previous, updateId, signed.timestamp, rawBody)}`;
  }
  return headers;
}
