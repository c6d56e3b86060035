import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a signed URL of the disk driver grants: one method on one key, with the size and type it binds. */
export interface SignedGrant {
  method: 'PUT' | 'GET';
  key: string;
  /** Bytes the PUT must carry; null for GET. */
  size: number | null;
  type: string;
  /** Unix seconds after which the URL is refused. */
  expires: number;
}

/** HMAC-SHA256 over every field of the grant; the method keeps a download URL from being used to upload. */
export class UrlSigner {
  private readonly key: Buffer;

  constructor(hexKey: string) {
    this.key = Buffer.from(hexKey, 'hex');
  }

  sign(grant: SignedGrant): string {
    const fields = [grant.method, grant.key, grant.size, grant.type, grant.expires];
    return createHmac('sha256', this.key).update(JSON.stringify(fields)).digest('base64url');
  }

  /** Constant-time comparison of the presented signature with the one the grant should carry. */
  verify(grant: SignedGrant, signature: string): boolean {
    const expected = Buffer.from(this.sign(grant));
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
