// Starts the three built apps side by side; Ctrl-C (SIGINT) or SIGTERM stops all of them gracefully.
import { execFileSync } from 'node:child_process';
import { relative } from 'node:path';
import concurrently from 'concurrently';

/**
 * On a development machine (NODE_ENV unset or `development`) webhooks must reach a receiver on this
 * machine with its own certificate, and a failing one should show its retries within minutes. Each
 * setting applies only when the variable is not set already.
 */
function developmentWebhookSettings() {
  const settings = { WEBHOOK_ALLOW_PRIVATE: 'true', DELIVERY_RETRY_DELAYS_MS: '5000,15000,30000,60000' };
  if (!process.env.WEBHOOK_CA_FILE) {
    try {
      settings.WEBHOOK_CA_FILE = execFileSync(
        process.execPath,
        [
          '-r',
          'ts-node/register/transpile-only',
          '-r',
          'tsconfig-paths/register',
          'scripts/dev-webhook-certificate.ts',
        ],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
      ).trim();
    } catch {
      console.warn(
        'no development webhook certificate (is openssl installed?); local HTTPS receivers will not be trusted',
      );
    }
  }
  const applied = Object.entries(settings).filter(([name]) => !process.env[name]);
  for (const [name, value] of applied) process.env[name] = value;
  if (applied.length > 0) {
    const shown = applied.map(([name, value]) => `${name}=${name.endsWith('_FILE') ? relative('.', value) : value}`);
    console.log(`development webhook settings: ${shown.join(' ')}`);
  }
}

if ((process.env.NODE_ENV || 'development') === 'development') developmentWebhookSettings();

const apps = ['voucher-api', 'bot-api', 'bot-dispatcher'];
const { result } = concurrently(
  apps.map((name) => ({ name, command: `node dist/apps/${name}/apps/${name}/src/main.js` })),
  { prefix: 'name', killOthersOn: ['failure'], killSignal: 'SIGTERM', handleInput: false },
);

result.then(
  () => process.exit(0),
  (events) =>
    process.exit(events.some((e) => e.exitCode !== 0 && e.exitCode !== 'SIGTERM' && e.exitCode !== 'SIGINT') ? 1 : 0),
);
