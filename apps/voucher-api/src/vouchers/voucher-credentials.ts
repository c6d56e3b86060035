import { Injectable } from '@nestjs/common';
import { randomBase62 } from '@app/auth';
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, randomInt } from 'node:crypto';
import { VoucherConfig } from '../config/voucher.config';

/** Six characters from 31 symbols that cannot be mistaken for each other (no 0/O, 1/I/L). */
export const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const CODE_LENGTH = 6;
/** 32 base62 characters ≈ 190 bits, comfortably above the 128 required. */
const QR_TOKEN_LENGTH = 32;
const QR_TOKEN_PREFIX = 'vq_';

export type CredentialPurpose = 'qr_token' | 'redeem_code';

export interface PlainCredentials {
  qrToken: string;
  code: string;
}

/** A code as typed by a person: case, spaces and hyphens do not matter. Null when it cannot be a code. */
export function normalizeCode(value: string): string | null {
  const code = value.replace(/[\s-]/g, '').toUpperCase();
  if (code.length !== CODE_LENGTH) return null;
  for (const char of code) if (!CODE_ALPHABET.includes(char)) return null;
  return code;
}

/**
 * Voucher credentials: generated here, stored encrypted with AES-256-GCM (for the holder's display)
 * and as HMAC-SHA256 digests (for lookup). Separate keys for the two uses are derived from
 * CREDENTIAL_KEY with HKDF, so neither use can weaken the other.
 */
@Injectable()
export class VoucherCredentials {
  private readonly encryptionKey: Buffer;
  private readonly lookupKey: Buffer;

  constructor(config: VoucherConfig) {
    const master = Buffer.from(config.CREDENTIAL_KEY, 'hex');
    this.encryptionKey = Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), 'voucher-credential-encryption', 32));
    this.lookupKey = Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), 'voucher-credential-lookup', 32));
  }

  generate(): PlainCredentials {
    let code = '';
    for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
    return { qrToken: `${QR_TOKEN_PREFIX}${randomBase62(QR_TOKEN_LENGTH)}`, code };
  }

  generateCode(): string {
    return this.generate().code;
  }

  qrTokenHash(qrToken: string): string {
    return createHmac('sha256', this.lookupKey).update(`qr:${qrToken}`).digest('hex');
  }

  /** Scoped to the application: the same code in two applications gives unrelated digests. */
  codeHash(applicationId: string, normalizedCode: string): string {
    return createHmac('sha256', this.lookupKey).update(`code:${applicationId}:${normalizedCode}`).digest('hex');
  }

  /** `v1.<iv>.<tag>.<ciphertext>` (base64url); the voucher id and purpose are bound in as associated data. */
  encrypt(voucherId: string, purpose: CredentialPurpose, plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.encryptionKey, iv);
    cipher.setAAD(Buffer.from(`${voucherId}:${purpose}`));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), ciphertext]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  decrypt(voucherId: string, purpose: CredentialPurpose, stored: string): string {
    const [version, iv, tag, ciphertext] = stored.split('.');
    if (version !== 'v1' || !iv || !tag || ciphertext === undefined) throw new Error('unreadable stored credential');
    // Without a fixed tag length GCM accepts a tag cut to 4 bytes, which a forger can guess.
    const decipher = createDecipheriv('aes-256-gcm', this.encryptionKey, Buffer.from(iv, 'base64url'), {
      authTagLength: 16,
    });
    decipher.setAAD(Buffer.from(`${voucherId}:${purpose}`));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }
}
