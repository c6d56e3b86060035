import { Inject, Injectable } from '@nestjs/common';
import { createValidationPipe, MAX_JSON_DEPTH, nestedDeeperThan } from '@app/platform';
import type { KeyObject } from 'node:crypto';
import { VoucherConfig } from '../config/voucher.config';
import { VoucherErrors } from '../voucher-errors';
import { SealCipher } from './seal-cipher';
import { SealedCallDto } from './sealed-call.dto';
import { SealedRequestIdsStore } from './sealed-request-ids.store';

/** A sealed call once opened and checked: what is re-dispatched, and how its answer is sealed. */
export interface OpenedCall {
  method: string;
  /** The logical path with its query string. */
  path: string;
  authorization?: string;
  idempotencyKey?: string;
  /** The exact body bytes (empty without a body) and their parsed JSON ({} without a body). */
  rawBody: Buffer;
  body: unknown;
  jti: string;
  /** When the seal's id may be forgotten: past it the seal is too old to be accepted anyway. */
  expiresAt: Date;
  /** The caller's public key the answer is sealed to, proven usable when the call was opened. */
  answerKey: KeyObject;
}

/** The sealed answer's plaintext: the whole response of the logical call. */
export interface SealedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const validation = createValidationPipe();

/** The rules of sealed calls: what opens, what is fresh, and that each seal is used once. */
@Injectable()
export class SealedTransportService {
  private readonly maxAgeMs: number;

  constructor(
    private readonly cipher: SealCipher,
    private readonly sealIds: SealedRequestIdsStore,
    @Inject(VoucherConfig) config: VoucherConfig,
  ) {
    this.maxAgeMs = config.SEALED_MAX_AGE_SECONDS * 1000;
  }

  /** Decrypts, validates, checks the freshness and proves the answer key of a sealed call; nothing is recorded yet. */
  async open(compact: string, now = new Date()): Promise<OpenedCall> {
    const plaintext = await this.cipher.open(compact);
    const call = await this.readCall(plaintext);
    const sealedAt = call.iat * 1000;
    if (Math.abs(now.getTime() - sealedAt) > this.maxAgeMs) {
      throw VoucherErrors.error(
        'SEALED_REQUEST_EXPIRED',
        `iat must lie within ${this.maxAgeMs / 1000} seconds of the server's clock (${Math.floor(now.getTime() / 1000)})`,
      );
    }
    const rawBody = Buffer.from(call.body ?? '', 'utf8');
    return {
      method: call.method,
      path: call.path,
      authorization: call.headers.authorization,
      idempotencyKey: call.headers['idempotency-key'],
      rawBody,
      body: this.parseBody(call.body),
      jti: call.jti,
      expiresAt: new Date(sealedAt + this.maxAgeMs),
      answerKey: this.cipher.answerKey(call.response_key),
    };
  }

  /** Records the seal's id, shared by every replica; a second use within the window is refused. */
  async admit(call: Pick<OpenedCall, 'jti' | 'expiresAt'>, now = new Date()): Promise<void> {
    if (!(await this.sealIds.admit(call.jti, call.expiresAt, now))) {
      throw VoucherErrors.error('SEALED_REQUEST_REPLAYED');
    }
  }

  seal(answer: SealedAnswer, answerKey: KeyObject): Promise<string> {
    return this.cipher.seal(Buffer.from(JSON.stringify(answer), 'utf8'), answerKey);
  }

  private async readCall(plaintext: Uint8Array): Promise<SealedCallDto> {
    let value: unknown;
    try {
      value = JSON.parse(Buffer.from(plaintext).toString('utf8'));
    } catch {
      throw VoucherErrors.error('SEALED_REQUEST_MALFORMED', 'The sealed plaintext is not JSON');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value) || nestedDeeperThan(value, 8)) {
      throw VoucherErrors.error('SEALED_REQUEST_MALFORMED', 'The sealed plaintext must be a call object');
    }
    try {
      return (await validation.transform(value, { type: 'body', metatype: SealedCallDto })) as SealedCallDto;
    } catch (error) {
      const details = (error as { details?: Array<{ field: string; problem: string }> }).details;
      throw VoucherErrors.error(
        'SEALED_REQUEST_MALFORMED',
        (error as Error).message.replace(/^Validation failed/, 'The sealed call is invalid'),
        { details },
      );
    }
  }

  private parseBody(text: string | undefined): unknown {
    if (text === undefined || text === '') return {};
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw VoucherErrors.error('SEALED_REQUEST_MALFORMED', 'The sealed body is not JSON', {
        details: [{ field: 'body', problem: 'must be JSON text' }],
      });
    }
    if (typeof body !== 'object' || body === null) {
      throw VoucherErrors.error('SEALED_REQUEST_MALFORMED', 'The sealed body must be a JSON object or array', {
        details: [{ field: 'body', problem: 'must be a JSON object or array' }],
      });
    }
    if (nestedDeeperThan(body, MAX_JSON_DEPTH)) {
      throw VoucherErrors.error(
        'SEALED_REQUEST_MALFORMED',
        `The sealed body nests deeper than ${MAX_JSON_DEPTH} levels`,
      );
    }
    return body;
  }
}
