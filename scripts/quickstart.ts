/**
 * The README quickstarts as runnable scripts, and what their output must show: shared by the test that
 * runs them against apps started in process (quickstart.e2e-spec.ts) and the one that runs them against
 * the container images (images/images.podman-test.ts).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { startCommand } from './e2e-support';
import { codeBlocks, section } from './markdown';

const README = readFileSync(resolve(__dirname, '..', 'README.md'), 'utf8');
/** The receiver runs in a terminal of its own, as the README says: here, in the background. */
const RECEIVER_BLOCK = /^npm run webhook:receive /;

export const VOUCHER_QUICKSTART = 'Vouchers: from an application to a reversed redemption';
export const BOT_QUICKSTART = 'Bots: from an application to a bot that answers, by polling and by webhook';

/** The addresses the README names, each replaced by the one of the apps under test. */
export interface QuickstartAddresses {
  'http://localhost:3001': string;
  'http://localhost:3002': string;
  '8443': string;
}

/**
 * The shell script a reader would type: every `sh` block of the README section (its subsections
 * included), in order, with the documented addresses pointed at the apps under test. curl fails on an
 * HTTP error and the script stops at the first failing command, so a step that no longer works fails.
 */
export function quickstartScript(
  heading: string,
  addresses: Partial<QuickstartAddresses>,
  receiverLog: string,
): string {
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

/** Runs the script to its end, hands its output to `check`, then stops whatever it left running. */
export async function runQuickstart(
  script: string,
  env: NodeJS.ProcessEnv,
  check: (output: string) => Promise<void> | void,
): Promise<void> {
  const shell = startCommand('bash', ['-c', script], env);
  try {
    const code = await shell.exitCode;
    if (code !== 0) throw new Error(`the quickstart stopped with exit code ${code}:\n${shell.output()}`);
    await check(shell.output());
  } finally {
    await shell.stop();
  }
}

/** Template approved, voucher verified, redeemed and reversed; stock allocated, sent and claimed. */
export function expectVoucherQuickstartOutput(output: string): void {
  expect(output).toMatch(/"reviewing"\n"active"\n/);
  expect(output).toMatch(/"status": "available",\s+"redeemable": true/);
  expect(output).toMatch(/"redemption": "reversed",\s+"voucher": "available"/);
  expect(output).toMatch(/\[\{"id":"[0-9a-f-]{36}","status":"sending"\}\]\n/);
  expect(output).toContain('{"send":"claimed","voucher":"available"}\n');
  expect(output).toContain('{"remaining":4,"claimedCount":1}\n');
}

/** Polling, an idempotent send, a file, then the webhook the receiver (logging to `receiverLog`) verified. */
export async function expectBotQuickstartOutput(output: string, receiverPort: string, receiverLog: string) {
  expect(output).toMatch(/"approved"\n/);
  expect(output).toMatch(/"type": "message",\s+"text": "Hello bot"/);
  expect(output).toMatch(/"Hi! One latte\?"\n0\n/);
  expect(output).toMatch(/\[\s+"Hi! One latte\?",\s+"Hello bot"\s+\]/);
  expect(output).toMatch(/\{"message_id":(\d+),"text":"Latte ordered"\}\n\{"message_id":\1,"text":"Latte ordered"\}\n/);
  expect(output).toContain(`"url": "https://127.0.0.1:${receiverPort}/hook"`);
  const received = () => readFileSync(receiverLog, 'utf8');
  for (let waited = 0; !received().includes('"text": "Hello webhook"'); waited += 100) {
    if (waited > 15_000) throw new Error(`no webhook arrived:\n${received()}`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
  }
  expect(received()).toMatch(/✓ \/hook verified Update \S+ \(message\)/);
}
