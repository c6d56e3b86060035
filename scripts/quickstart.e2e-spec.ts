import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort, reservePort } from '@app/testing';
import { BotTestContext, startBotApp } from '../apps/bot-api/test/app-context';
import { DispatcherProcess, startDispatcher } from '../apps/bot-api/test/dispatcher-process';
import { startVoucherApp, VoucherTestContext } from '../apps/voucher-api/test/app-context';
import { devWebhookCertificate } from './dev-webhook-certificate';
import { listen, startCommand } from './e2e-support';
import { codeBlocks, section } from './markdown';

const README = readFileSync(resolve(__dirname, '..', 'README.md'), 'utf8');
/** The receiver runs in a terminal of its own, as the README says: here, in the background. */
const RECEIVER_BLOCK = /^npm run webhook:receive /;

interface Addresses {
  'http://localhost:3001': string;
  'http://localhost:3002': string;
  '8443': string;
}

/**
 * The shell script a reader would type: every `sh` block of the README section, in order, with the
 * documented addresses pointed at the apps this test started. curl fails on an HTTP error and the
 * script stops at the first failing command, so a step that no longer works fails the test.
 */
function quickstartScript(heading: string, addresses: Partial<Addresses>, receiverLog: string): string {
  const blocks = codeBlocks(section(README, heading)).filter((block) => block.lang === 'sh');
  expect(blocks.length).toBeGreaterThan(3);
  let script = blocks
    .map(({ code }) =>
      RECEIVER_BLOCK.test(code)
        ? `(${code}) > '${receiverLog}' 2>&1 &\n` +
          `until grep -q 'Receiving webhooks' '${receiverLog}'; do sleep 0.2; done`
        : code,
    )
    .join('\n');
  for (const [documented, actual] of Object.entries(addresses)) {
    expect(script).toContain(documented);
    script = script.split(documented).join(actual);
  }
  return `set -euo pipefail\ncurl() { command curl --fail-with-body "$@"; }\n${script}\n`;
}

describe('the README quickstarts, run as written against started apps', () => {
  let voucher: VoucherTestContext;
  let bot: BotTestContext;
  let dispatcher: DispatcherProcess;
  let workDir: string;
  let urls: { voucher: string; bot: string };
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'quickstart-'));
    const certificate = devWebhookCertificate(join(workDir, 'certificate'));
    voucher = await startVoucherApp();
    // Upload and download URLs name bot-api's public address, so it is known before the app starts.
    const botPort = await reservePort();
    bot = await startBotApp({
      WEBHOOK_ALLOW_PRIVATE: 'true',
      FILE_PUBLIC_BASE_URL: `http://127.0.0.1:${botPort.port}`,
    });
    await botPort.release();
    urls = { voucher: await listen(voucher.app), bot: await listen(bot.app, botPort.port) };
    dispatcher = await startDispatcher(bot, {
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_CA_FILE: certificate.certFile,
    });
    env = {
      ACCOUNT_JWT_SECRET: voucher.config.ACCOUNT_JWT_SECRET,
      ACCOUNT_JWT_ISSUER: '',
      ACCOUNT_JWT_AUDIENCE: '',
      WEBHOOK_RECEIVER_CERT_DIR: certificate.dir,
    };
  }, 60_000);

  afterAll(async () => {
    await dispatcher?.stop();
    await voucher?.close();
    await bot?.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  /** Runs the script to its end, hands its output to `check`, then stops whatever it left running. */
  async function runQuickstart(script: string, check: (output: string) => Promise<void> | void): Promise<void> {
    const shell = startCommand('bash', ['-c', script], env);
    try {
      const code = await shell.exitCode;
      if (code !== 0) throw new Error(`the quickstart stopped with exit code ${code}:\n${shell.output()}`);
      await check(shell.output());
    } finally {
      await shell.stop();
    }
  }

  it('takes a voucher from a new application through issue, verify and redeem to a reversal', async () => {
    const script = quickstartScript(
      'Vouchers: from an application to a reversed redemption',
      { 'http://localhost:3001': urls.voucher },
      join(workDir, 'unused.log'),
    );
    await runQuickstart(script, (output) => {
      expect(output).toMatch(/"reviewing"\n"active"\n/);
      expect(output).toMatch(/"status": "available",\s+"redeemable": true/);
      expect(output).toMatch(/"redemption": "reversed",\s+"voucher": "available"/);
    });
  }, 120_000);

  it('takes a bot from its application to answering by polling, then receives an Update by webhook', async () => {
    const receiverLog = join(workDir, 'receiver.log');
    const port = String(await freePort());
    const script = quickstartScript(
      'Bots: from an application to a bot that answers, by polling and by webhook',
      { 'http://localhost:3002': urls.bot, '8443': port },
      receiverLog,
    );
    await runQuickstart(script, async (output) => {
      expect(output).toMatch(/"approved"\n/);
      expect(output).toMatch(/"type": "message",\s+"text": "Hello bot"/);
      expect(output).toMatch(/"Hi! One latte\?"\n0\n/);
      expect(output).toMatch(/\[\s+"Hi! One latte\?",\s+"Hello bot"\s+\]/);
      expect(output).toMatch(
        /\{"message_id":(\d+),"text":"Latte ordered"\}\n\{"message_id":\1,"text":"Latte ordered"\}\n/,
      );
      expect(output).toContain(`"url": "https://127.0.0.1:${port}/hook"`);
      const received = () => readFileSync(receiverLog, 'utf8');
      for (let waited = 0; !received().includes('"text": "Hello webhook"'); waited += 100) {
        if (waited > 15_000) throw new Error(`no webhook arrived:\n${received()}`);
        await new Promise((resolveWait) => setTimeout(resolveWait, 100));
      }
      expect(received()).toMatch(/✓ \/hook verified Update \S+ \(message\)/);
    });
  }, 120_000);
});
