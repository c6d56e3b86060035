import { DEV_WEBHOOK_SECRET_KEY, webhookSecretContext } from './webhook-secret';

describe('webhook secret sealing', () => {
  // SecretCipher binds a sealed value to this text (its own spec shows another context cannot open it);
  // the bare bot id is another purpose, the bot's one-time token.
  it('binds a sealed secret_token to its bot under a context of its own purpose', () => {
    expect(webhookSecretContext('bot-1')).toBe('webhook:bot-1');
    expect(webhookSecretContext('bot-2')).not.toBe(webhookSecretContext('bot-1'));
  });

  it('has a development key of 32 bytes in hex, as WEBHOOK_SECRET_KEY must be', () => {
    expect(DEV_WEBHOOK_SECRET_KEY).toMatch(/^[0-9a-f]{64}$/);
  });
});
