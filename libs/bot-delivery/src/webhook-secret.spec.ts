import { SecretCipher } from '@app/auth';
import { DEV_WEBHOOK_SECRET_KEY, webhookSecretContext } from './webhook-secret';

describe('webhook secret sealing', () => {
  it('binds a sealed secret_token to its bot, so it opens for no other bot', () => {
    expect(webhookSecretContext('bot-1')).toBe('webhook:bot-1');
    const cipher = new SecretCipher(DEV_WEBHOOK_SECRET_KEY);
    const sealed = cipher.encrypt(webhookSecretContext('bot-1'), 'secret_token');
    expect(cipher.decrypt(webhookSecretContext('bot-1'), sealed)).toBe('secret_token');
    expect(() => cipher.decrypt(webhookSecretContext('bot-2'), sealed)).toThrow();
    // The bare bot id is another purpose (a bot's one-time token is sealed under it).
    expect(() => cipher.decrypt('bot-1', sealed)).toThrow();
  });

  it('has a development key of 32 bytes in hex, as WEBHOOK_SECRET_KEY must be', () => {
    expect(DEV_WEBHOOK_SECRET_KEY).toMatch(/^[0-9a-f]{64}$/);
  });
});
