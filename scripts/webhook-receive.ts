/**
 * A webhook receiver for a development machine:
 *   npm run webhook:receive -- --port 8443 --secret <the secret_token given to setWebhook>
 * Serves HTTPS with the development certificate that `npm start` makes the dispatcher trust, checks
 * every request's signatures and prints the Updates as they arrive. See docs/webhooks.md.
 */
import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { startHttpsReceiver } from '@app/testing';
import { devCertificateDir, devWebhookCertificate } from './dev-webhook-certificate';
import { checkDelivery } from './webhook-delivery-check';

export const RECEIVE_USAGE = `usage: npm run webhook:receive -- --secret <secret_token> [--port 8443] [--host 127.0.0.1] [--status 200]

Receives the webhooks of a bot on this machine: HTTPS with the development certificate
(tmp/dev-webhook-receiver/cert.pem, made on first use; WEBHOOK_RECEIVER_CERT_DIR moves it), which
\`npm start\` hands to the dispatcher as WEBHOOK_CA_FILE. Every request's signatures are checked with
the secret; a valid Update is printed and answered --status, anything else is answered 401.

  --secret <secret>   the secret_token given to setWebhook; required
  --port <port>       port to listen on (default 8443)
  --host <address>    address to listen on (default 127.0.0.1)
  --status <code>     answer to valid Updates (default 200; e.g. 500 to watch the retry schedule)
  --help              prints this text`;

interface ReceiveOptions {
  secret: string;
  port: number;
  host: string;
  status: number;
}

function parseReceiveArgs(args: string[]): ReceiveOptions | 'help' {
  const { values } = parseArgs({
    args,
    options: {
      secret: { type: 'string' },
      port: { type: 'string', default: '8443' },
      host: { type: 'string', default: '127.0.0.1' },
      status: { type: 'string', default: '200' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return 'help';
  if (!values.secret) throw new Error('--secret is required');
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port ${values.port} is not a port`);
  const status = Number(values.status);
  if (!Number.isInteger(status) || status < 200 || status > 599) {
    throw new Error(`--status ${values.status} is not an HTTP status`);
  }
  return { secret: values.secret, port, host: values.host, status };
}

const time = () => new Date().toISOString().slice(11, 19);

async function receive(options: ReceiveOptions): Promise<void> {
  const certificate = devWebhookCertificate(devCertificateDir());
  const receiver = await startHttpsReceiver({
    port: options.port,
    host: options.host,
    certificate,
    keepRequests: false,
  });
  const seen = new Set<string>();
  receiver.answer((request) => {
    const verdict = checkDelivery(options.secret, request, Math.floor(Date.now() / 1000));
    if (!verdict.accepted) {
      console.log(`[${time()}] ✗ ${request.method} ${request.path} answered ${verdict.status}: ${verdict.problem}`);
      return verdict.status;
    }
    const { update } = verdict;
    const repeat = seen.has(update.update_id);
    seen.add(update.update_id);
    const line =
      `[${time()}] ✓ ${request.path} verified Update ${update.update_id} (${update.type}), ` +
      `timestamp ${verdict.timestampAgeSeconds} s old, answered ${options.status}`;
    // One write per Update, so its line and its JSON never come apart in a pipe.
    console.log(
      repeat
        ? `${line} — a duplicate of an Update received before; a receiver skips it`
        : `${line}\n${JSON.stringify(update, null, 2)}`,
    );
    return options.status;
  });
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  console.log(`Receiving webhooks on https://${host}:${receiver.port}/ (any path)`);
  console.log(`Certificate: ${relative(process.cwd(), certificate.certFile)} (npm start passes it as WEBHOOK_CA_FILE)`);
  if (certificate.created) {
    console.log('The certificate is new: restart npm start if it is running, so that the dispatcher trusts it.');
  }
  console.log(`setWebhook with "url": "https://${host}:${receiver.port}/hook" and "secret_token": "${options.secret}"`);
  const stop = () => void receiver.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

async function main(): Promise<void> {
  let options: ReceiveOptions | 'help';
  try {
    options = parseReceiveArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${RECEIVE_USAGE}\n`);
    process.exit(2);
  }
  if (options === 'help') {
    process.stdout.write(`${RECEIVE_USAGE}\n`);
    return;
  }
  try {
    await receive(options);
  } catch (error) {
    const err = error as NodeJS.ErrnoException;
    const reason = err.code === 'EADDRINUSE' ? `port ${options.port} is in use` : err.message;
    process.stderr.write(`webhook:receive: ${reason}\n`);
    process.exit(1);
  }
}

if (require.main === module) void main();
