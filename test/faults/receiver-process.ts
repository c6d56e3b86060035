import { startHttpsReceiver } from '@app/testing';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * A webhook receiver in a process of its own that answers 200 at once and reports each request to its
 * parent with the time it arrived: a bot's own endpoint, which in production shares nothing with the
 * endpoints of other bots (nor with the service), so a scenario can time its deliveries apart from
 * whatever else the test process is busy with.
 */
async function main(): Promise<void> {
  const certFile = process.env.RECEIVER_CERT_FILE as string;
  const keyFile = process.env.RECEIVER_KEY_FILE as string;
  const certificate = {
    dir: dirname(certFile),
    certFile,
    keyFile,
    cert: readFileSync(certFile, 'utf8'),
    key: readFileSync(keyFile, 'utf8'),
  };
  const receiver = await startHttpsReceiver({ certificate, keepRequests: false });
  receiver.answer((req) => {
    const at = Date.now();
    const update = JSON.parse(req.rawBody.toString('utf8')) as { message?: { text?: string } };
    process.send?.({ received: update.message?.text ?? '', at });
    return 200;
  });
  process.send?.({ url: receiver.url });
  process.on('disconnect', () => void receiver.close().then(() => process.exit(0)));
}

void main();
