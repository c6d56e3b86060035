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
  /** When the call was sealed, in seconds since the epoch. */
  iat: number;
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

/**
 * The rules of sealed calls: what opens, what is fresh, and that each seal runs once. A seal's id is
 * recorded only when the call is about to run, so a seal refused before that never ran and may be sent
 * again; freshness is decided then on the database's clock, which also times the ids' purge.
 */
@Injectable()
export class SealedTransportService {
  private readonly maxAgeSeconds: number;

  constructor(
    private readonly cipher: SealCipher,
    private readonly sealIds: SealedRequestIdsStore,
    @Inject(VoucherConfig) config: VoucherConfig,
  ) {
    this.maxAgeSeconds = config.SEALED_MAX_AGE_SECONDS;
  }

  /**
   * Decrypts, validates and proves the answer key of a sealed call; nothing is recorded yet. A seal
   * plainly out of its window on this replica's clock is refused here already, before any other work.
   */
  async open(compact: string, now = new Date()): Promise<OpenedCall> {
    const plaintext = await this.cipher.open(compact);
    const call = await this.readCall(plaintext);
    const nowSeconds = now.getTime() / 1000;
    if (Math.abs(nowSeconds - call.iat) > this.maxAgeSeconds) throw this.expired(Math.floor(nowSeconds));
    const rawBody = Buffer.from(call.body ?? '', 'utf8');
    return {
      method: call.method,
      path: call.path,
      authorization: call.headers.authorization,
      idempotencyKey: call.headers['idempotency-key'],
      rawBody,
      body: this.parseBody(call.body),
      jti: call.jti,
      iat: call.iat,
      answerKey: this.cipher.answerKey(call.response_key),
    };
  }

  /** A seal whose id is recorded already is turned away before its token is even looked up (read only). */
  async refuseReplay(call: Pick<OpenedCall, 'jti'>): Promise<void> {
    if (await this.sealIds.seen(call.jti)) throw VoucherErrors.error('SEALED_REQUEST_REPLAYED');
  }

  /**
   * Records the seal's id, shared by every replica, as the call is about to run: a second use within
   * the window is refused, and so is a seal that is not fresh on the database's clock.
   */
  async admit(call: Pick<OpenedCall, 'jti' | 'iat'>): Promise<void> {
    const { fresh, admitted, nowSeconds } = await this.sealIds.admit(call.jti, call.iat, this.maxAgeSeconds);
    if (!fresh) throw this.expired(nowSeconds);
    if (!admitted) throw VoucherErrors.error('SEALED_REQUEST_REPLAYED');
  }

  seal(answer: SealedAnswer, answerKey: KeyObject): Promise<string> {
    return this.cipher.seal(Buffer.from(JSON.stringify(answer), 'utf8'), answerKey);
  }

  private expired(nowSeconds: number) {
    return VoucherErrors.error(
      'SEALED_REQUEST_EXPIRED',
      `iat must lie within ${this.maxAgeSeconds} seconds of the service's clock (${nowSeconds})`,
    );
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
