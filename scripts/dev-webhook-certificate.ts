/**
 * The development webhook certificate: made once, kept under tmp/, served by `npm run webhook:receive`
 * and trusted by the dispatcher that `npm start` runs (as WEBHOOK_CA_FILE).
 *   node -r ts-node/register/transpile-only -r tsconfig-paths/register scripts/dev-webhook-certificate.ts
 * prints the certificate's path, making it first when it is missing or about to expire.
 */
import { resolve } from 'node:path';
import { ensureLocalCertificate, LocalCertificate } from '@app/testing';

/** WEBHOOK_RECEIVER_CERT_DIR moves it, e.g. for a test that must not share the developer's certificate. */
export function devCertificateDir(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.WEBHOOK_RECEIVER_CERT_DIR || resolve(__dirname, '..', 'tmp', 'dev-webhook-receiver'));
}

export function devWebhookCertificate(dir = devCertificateDir()): LocalCertificate & { created: boolean } {
  return ensureLocalCertificate(dir);
}

if (require.main === module) {
  try {
    process.stdout.write(`${devWebhookCertificate().certFile}\n`);
  } catch (error) {
    process.stderr.write(`could not make the development webhook certificate: ${(error as Error).message}\n`);
    process.exit(1);
  }
}
