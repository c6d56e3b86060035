/**
 * The README's quickstarts as runnable shell scripts, and what their output must show. Shared by the test
 * that runs them against apps it starts (quickstart.e2e-spec.ts), the one that runs them against the
 * container images (images/images.podman-test.ts) and the bare-machine smoke (smoke-bare.ts), which runs
 * them against `npm start`. Checks are plain assertions, so they work outside Jest too.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CommandProcess, startCommand } from './e2e-support';
import { codeBlocks, section } from './markdown';

const README = resolve(__dirname, '..', 'README.md');
/** The receiver runs in a terminal of its own, as the README says: here, in the background. */
const RECEIVER_BLOCK = /^npm run webhook:receive /;

export const VOUCHER_QUICKSTART = 'Vouchers: from an application to a reversed redemption';
export const BOT_QUICKSTART = 'Bots: from an application to a bot that answers, by polling and by webhook';

/** Addresses the README names, each replaced by where the apps under test actually listen. */
export type QuickstartAddresses = Partial<Record<'http://localhost:3001' | 'http://localhost:3002' | '8443', string>>;

/**
 * The shell script a reader would type: every `sh` block of the README section, in order, with the
 * documented addresses pointed at the apps under test. curl fails on an HTTP error and the script stops
 * at the first failing command, so a step that no longer works fails the run.
 */
export function quickstartScript(heading: string, addresses: QuickstartAddresses, receiverLog: string): string {
  const blocks = codeBlocks(section(readFileSync(README, 'utf8'), heading)).filter((block) => block.lang === 'sh');
  assert.ok(blocks.length > 3, `the section "${heading}" has ${blocks.length} sh blocks`);
  let script = blocks
    .map(({ code }) =>
      RECEIVER_BLOCK.test(code)
        ? `(${code}) > '${receiverLog}' 2>&1 &\n` +
          `until grep -q 'Receiving webhooks' '${receiverLog}'; do sleep 0.2; done`
        : code,
    )
    .join('\n');
  for (const [documented, actual] of Object.entries(addresses)) {
    assert.ok(script.includes(documented), `the quickstart no longer names ${documented}`);
    script = script.split(documented).join(actual);
  }
  return `set -euo pipefail\ncurl() { command curl --fail-with-body "$@"; }\n${script}\n`;
}

/**
 * Runs the script to its end, hands its output to `check`, then stops whatever it left running: the
 * webhook receiver the script starts in the background must outlive it until `check` has waited for the
 * Update. `launch` runs the shell elsewhere (the bare-machine smoke runs it in a network namespace).
 */
export async function runQuickstart(
  script: string,
  env: NodeJS.ProcessEnv,
  check: (output: string) => Promise<void> | void,
  launch: (command: string[], env: NodeJS.ProcessEnv) => CommandProcess = ([command, ...args], env) =>
    startCommand(command, args, env),
): Promise<void> {
  const shell = launch(['bash', '-c', script], env);
  try {
    const code = await shell.exitCode;
    if (code !== 0) throw new Error(`the quickstart stopped with exit code ${code}:\n${shell.output()}`);
    await check(shell.output());
  } finally {
    await shell.stop();
  }
}

/** Template approved, voucher verified, redeemed and reversed; stock allocated, sent and claimed. */
export function checkVoucherQuickstart(output: string): void {
  assert.match(output, /"reviewing"\n"active"\n/);
  assert.match(output, /"status": "available",\s+"redeemable": true/);
  assert.match(output, /"redemption": "reversed",\s+"voucher": "available"/);
  assert.match(output, /\[\{"id":"[0-9a-f-]{36}","status":"sending"\}\]\n/);
  assert.ok(output.includes('{"send":"claimed","voucher":"available"}\n'), 'the stock send was not claimed');
  assert.ok(output.includes('{"remaining":4,"claimedCount":1}\n'), 'the allocation does not show the claim');
}

/**
 * "Within a moment" in the README; the bound leaves room for one failed attempt and its first retry on the
 * development schedule (5 s, then 15 s), so a slow first connection on a loaded machine does not fail the check.
 */
const WEBHOOK_ARRIVAL_MS = 45_000;

/**
 * What the bot quickstart prints, and that its webhook receiver (listening on `receiverPort`, writing
 * `receiverLog`) got and verified the signed Update within WEBHOOK_ARRIVAL_MS.
 */

export async function checkBotQuickstart(output: string, receiverPort: string, receiverLog: string): Promise<void> {
  assert.match(output, /"approved"\n/);
  assert.match(output, /"type": "message",\s+"text": "Hello bot"/);
  assert.match(output, /"Hi! One latte\?"\n0\n/);
  assert.match(output, /\[\s+"Hi! One latte\?",\s+"Hello bot"\s+\]/);
  assert.match(output, /\{"message_id":(\d+),"text":"Latte ordered"\}\n\{"message_id":\1,"text":"Latte ordered"\}\n/);
  assert.ok(output.includes(`"url": "https://127.0.0.1:${receiverPort}/hook"`), 'setWebhook did not answer the URL');
  const received = () => readFileSync(receiverLog, 'utf8');
  for (let waited = 0; !received().includes('"text": "Hello webhook"'); waited += 100) {
    if (waited > WEBHOOK_ARRIVAL_MS) {
      const webhookInfo = output.slice(output.lastIndexOf('{\n  "url"'));
      throw new Error(`no webhook arrived; getWebhookInfo said ${webhookInfo}\nthe receiver printed:\n${received()}`);
    }
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
  }
  assert.match(received(), /✓ \/hook verified Update \S+ \(message\)/);
}
