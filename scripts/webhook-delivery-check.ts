import type { IncomingHttpHeaders } from 'node:http';
import {
  SIGNATURE_HEADER,
  SIGNATURE_TOLERANCE_SECONDS,
  SIGNATURE_V2_HEADER,
  TIMESTAMP_HEADER,
  UPDATE_ID_HEADER,
  verifyWebhookSignatureV1,
  verifyWebhookSignatureV2,
} from '@app/bot-delivery';

export interface DeliveryRequest {
  method: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
}

export type Update = Record<string, unknown> & { update_id: string; type: string };

/** What a receiver following docs/webhooks.md concludes about one request, and what it answers. */
export type DeliveryVerdict =
  | { accepted: true; status: 200; update: Update; timestampAgeSeconds: number }
  | { accepted: false; status: 400 | 401 | 405; problem: string };

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * Checks one webhook request the way the guide tells receivers to: both signatures over the raw
 * bytes (V2 with its timestamp window) before the body is parsed, then the Update id header against
 * the body. Uses the service's own verification code, so it also proves the service signs correctly.
 */
export function checkDelivery(secret: string, request: DeliveryRequest, nowSeconds: number): DeliveryVerdict {
  if (request.method !== 'POST') return { accepted: false, status: 405, problem: `${request.method} instead of POST` };
  const { headers, rawBody } = request;
  if (!verifyWebhookSignatureV1(secret, rawBody, header(headers, SIGNATURE_HEADER))) {
    return {
      accepted: false,
      status: 401,
      problem: `${SIGNATURE_HEADER} does not match the raw body (is --secret the webhook's secret_token?)`,
    };
  }
  const timestamp = header(headers, TIMESTAMP_HEADER);
  if (!timestamp || !/^\d{1,12}$/.test(timestamp)) {
    return { accepted: false, status: 401, problem: `${TIMESTAMP_HEADER} is missing or not Unix seconds` };
  }
  const age = nowSeconds - Number(timestamp);
  if (Math.abs(age) > SIGNATURE_TOLERANCE_SECONDS) {
    return {
      accepted: false,
      status: 401,
      problem: `${TIMESTAMP_HEADER} is ${age} s from this clock, outside ±${SIGNATURE_TOLERANCE_SECONDS} s`,
    };
  }
  if (!verifyWebhookSignatureV2(secret, rawBody, header(headers, SIGNATURE_V2_HEADER), timestamp, nowSeconds)) {
    return { accepted: false, status: 401, problem: `${SIGNATURE_V2_HEADER} does not match "timestamp.body"` };
  }
  let update: Update;
  try {
    update = JSON.parse(rawBody.toString('utf8')) as Update;
  } catch {
    return { accepted: false, status: 400, problem: 'the signed body is not JSON' };
  }
  if (header(headers, UPDATE_ID_HEADER) !== update.update_id) {
    return { accepted: false, status: 400, problem: `${UPDATE_ID_HEADER} differs from the body's update_id` };
  }
  return { accepted: true, status: 200, update, timestampAgeSeconds: age };
}
