import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { SqlTarget } from '@app/platform';
import type { TemplateRecord } from '../templates/templates.store';
import { VoucherCredentials } from './voucher-credentials';
import { CreatedVoucher, VouchersStore } from './vouchers.store';

const DAY_MS = 24 * 60 * 60 * 1000;
/** A code clash needs another live voucher of the same application with the same 6 characters; a few retries suffice. */
const CODE_ATTEMPTS = 8;

export interface CreateVoucherOptions {
  /** The caller's issue number (runtime issue). */
  externalIssueId?: string;
  /** The send the voucher was claimed from (holder claim). */
  sendId?: string;
  /** The moment of issue or claim; relative validity counts from it. */
  now?: Date;
}

/**
 * Creates a voucher with fresh credentials inside the caller's transaction. It takes no stock and
 * checks no limit: the use case (issue, claim) has done that before calling.
 */
@Injectable()
export class VoucherFactory {
  constructor(
    private readonly credentials: VoucherCredentials,
    private readonly vouchers: VouchersStore,
  ) {}

  async create(
    manager: SqlTarget,
    template: Pick<TemplateRecord, 'id' | 'applicationId' | 'validFrom' | 'validTo' | 'daysAfterClaim'>,
    recipientUserId: string,
    options: CreateVoucherOptions = {},
  ): Promise<CreatedVoucher> {
    const now = options.now ?? new Date();
    const [validFrom, validTo] =
      template.daysAfterClaim !== null
        ? [now, new Date(now.getTime() + template.daysAfterClaim * DAY_MS)]
        : [template.validFrom!, template.validTo!];
    const id = randomUUID();
    for (let attempt = 0; attempt < CODE_ATTEMPTS; attempt++) {
      const { qrToken, code } = this.credentials.generate();
      const created = await this.vouchers.insert(manager, {
        id,
        applicationId: template.applicationId,
        templateId: template.id,
        recipientUserId,
        externalIssueId: options.externalIssueId ?? null,
        validFrom,
        validTo,
        issuedAt: now,
        qrTokenHash: this.credentials.qrTokenHash(qrToken),
        qrTokenEnc: this.credentials.encrypt(id, 'qr_token', qrToken),
        codeHash: this.credentials.codeHash(template.applicationId, code),
        codeEnc: this.credentials.encrypt(id, 'redeem_code', code),
        sendId: options.sendId ?? null,
      });
      if (created) return created;
    }
    throw new Error('could not draw a unique voucher code');
  }

  /**
   * Gives a voucher that becomes live again (reversal) a new code when its old one has meanwhile been
   * handed to another live voucher of the application. Returns true when the code was replaced.
   */
  async ensureLiveCodeIsFree(manager: SqlTarget, voucherId: string, applicationId: string): Promise<boolean> {
    if (!(await this.vouchers.codeTakenByAnother(manager, voucherId, applicationId))) return false;
    for (let attempt = 0; attempt < CODE_ATTEMPTS; attempt++) {
      const code = this.credentials.generateCode();
      const codeHash = this.credentials.codeHash(applicationId, code);
      if (await this.vouchers.liveCodeTaken(manager, applicationId, codeHash)) continue;
      await this.vouchers.replaceCode(
        manager,
        voucherId,
        codeHash,
        this.credentials.encrypt(voucherId, 'redeem_code', code),
      );
      return true;
    }
    throw new Error('could not draw a unique voucher code');
  }
}
