/** The associated data a webhook's sealed secret_token is bound to (see SecretCipher in @app/auth). */
export const webhookSecretContext = (botId: string): string => `webhook:${botId}`;

/** Development default of WEBHOOK_SECRET_KEY in both apps; refused when NODE_ENV=production. */
export const DEV_WEBHOOK_SECRET_KEY = '1f1e1d1c1b1a191817161514131211100f0e0d0c0b0a09080706050403020100';
