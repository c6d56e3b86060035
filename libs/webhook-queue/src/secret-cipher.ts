import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/**
 * AES-256-GCM for secrets the service must read back in plaintext (a webhook's secret_token signs
 * every request). `context` is bound as associated data (e.g. `webhook:<bot_id>`), so a ciphertext
 * copied onto another row or used for another purpose does not decrypt.
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
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
  }

  decrypt(context: string, sealed: string): string {
    const [version, iv, tag, body] = sealed.split(':');
    if (version !== VERSION || !iv || !tag || !body) throw new Error('unrecognised secret ciphertext');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
  }
}

export const webhookSecretContext = (botId: string): string => `webhook:${botId}`;

/** Development default of WEBHOOK_SECRET_KEY in both apps; refused when NODE_ENV=production. */
export const DEV_WEBHOOK_SECRET_KEY = '1f1e1d1c1b1a191817161514131211100f0e0d0c0b0a09080706050403020100';
