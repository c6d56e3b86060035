import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, reservePort } from '@app/testing';
import { BotTestContext, startBotApp } from '../apps/bot-api/test/app-context';
import { DispatcherProcess, startDispatcher } from '../apps/bot-api/test/dispatcher-process';
import { startVoucherApp, VoucherTestContext } from '../apps/voucher-api/test/app-context';
import { devWebhookCertificate } from './dev-webhook-certificate';
import { listen } from './e2e-support';
import {
  BOT_QUICKSTART,
  checkBotQuickstart,
  checkVoucherQuickstart,
  quickstartScript,
  runQuickstart,
  VOUCHER_QUICKSTART,
} from './quickstart';

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

  it('takes a voucher from a new application through issue, verify and redeem to a reversal, and stock from allocation to a claim', async () => {
    const script = quickstartScript(
      VOUCHER_QUICKSTART,
      { 'http://localhost:3001': urls.voucher },
      join(workDir, 'unused.log'),
    );
    await runQuickstart(script, env, checkVoucherQuickstart);
  }, 120_000);

  it('takes a bot from its application to answering by polling, then receives an Update by webhook', async () => {
    const receiverLog = join(workDir, 'receiver.log');
    const port = String(await freePort());
    const script = quickstartScript(BOT_QUICKSTART, { 'http://localhost:3002': urls.bot, '8443': port }, receiverLog);
    await runQuickstart(script, env, (output) => checkBotQuickstart(output, port, receiverLog));
  }, 120_000);
});
