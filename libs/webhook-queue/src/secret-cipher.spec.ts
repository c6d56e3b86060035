import { DEV_WEBHOOK_SECRET_KEY, SecretCipher, webhookSecretContext } from './secret-cipher';

describe('SecretCipher', () => {
  const cipher = new SecretCipher(DEV_WEBHOOK_SECRET_KEY);

  it('round-trips a secret without keeping the plaintext in the sealed form', () => {
    const sealed = cipher.encrypt(webhookSecretContext('a'.repeat(24)), 'my-secret_token');
    expect(sealed).not.toContain('my-secret_token');
    expect(cipher.decrypt(webhookSecretContext('a'.repeat(24)), sealed)).toBe('my-secret_token');
  });

  it('does not decrypt a ciphertext moved to another bot', () => {
    const sealed = cipher.encrypt(webhookSecretContext('a'.repeat(24)), 'secret');
    expect(() => cipher.decrypt(webhookSecretContext('b'.repeat(24)), sealed)).toThrow();
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => new SecretCipher('abcd')).toThrow(/32 bytes/);
  });
});
