import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/**
 * AES-256-GCM for secrets a service must read back in plaintext (a bot's one-time token until its
 * single read, a webhook's secret_token that signs every request). `context` is bound as associated
 * data (e.g. the bot id, or `webhook:<bot_id>`), so a ciphertext copied onto another row or used for
 * another purpose does not decrypt.
 */
export class SecretCipher {
  private readonly key: Buffer;

  constructor(hexKey: string) {
    this.key = Buffer.from(hexKey, 'hex');
    if (this.key.length !== 32) throw new Error('secret encryption key must be 32 bytes');
  }

  encrypt(context: string, plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(Buffer.from(plaintext)), cipher.final()]);
    return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
  }

  decrypt(context: string, sealed: string): string {
    const [version, iv, tag, body] = sealed.split(':');
    if (version !== VERSION || !iv || !tag || !body) throw new Error('unrecognised secret ciphertext');
    // Without a fixed tag length GCM accepts a tag cut to 4 bytes, which a forger can guess.
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'), { authTagLength: 16 });
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString();
  }
}
