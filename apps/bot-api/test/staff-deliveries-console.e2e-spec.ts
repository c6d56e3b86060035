import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrowserContext, chromium, Page } from 'playwright-core';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { chromiumExecutable, REPO_ROOT, waitUntil } from '@app/testing';
import { BotTestContext, startBotApp } from './app-context';
import { DeliveryWorld, HookBot, hookBot, STAFF } from './staff-deliveries-world';

/**
 * Waits until `selector` matches `count` elements. Polled from the test: a `waitForFunction` predicate
 * that is not true at once is re-run by eval inside the page, which the console's CSP forbids.
 */
async function rowCount(page: Page, selector: string, count: number, timeoutMs = 10_000): Promise<void> {
  await waitUntil(async () => (await page.locator(selector).count()) === count, `${count} × ${selector}`, timeoutMs);
}
const SCREENSHOTS = join(REPO_ROOT, 'tmp', 'screenshots');

/** The staff console in headless Chromium: sign in, filter, bulk redrive to 100 %, audit log. */
describe('staff delivery console in a browser', () => {
  let ctx: BotTestContext;
  let world: DeliveryWorld;
  let browser: BrowserContext;
  let page: Page;
  let base: string;
  let profile: string;
  let noisy: HookBot;
  let quiet: HookBot;

  beforeAll(async () => {
    const executable = await chromiumExecutable();
    world = await DeliveryWorld.start();
    ctx = await startBotApp({ WEBHOOK_ALLOW_PRIVATE: 'true', REDRIVE_STEP_MS: '100' });
    const server = ctx.app.getHttpServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    noisy = await hookBot(ctx, world, 'noisy');
    quiet = await hookBot(ctx, world, 'quiet');
    const seed = (bot: HookBot, n: number, code: number) =>
      ctx.app.get(DataSource).query(
        `INSERT INTO webhook_deliveries (bot_id, update_seq, update_id, update_type, payload, status, attempts,
                                         dead_letter_at, last_error, last_status_code)
         SELECT $1, g, gen_random_uuid(), 'message', jsonb_build_object('text', 'hello ' || g), 'dead_letter', 5,
                now() - interval '10 minutes', 'HTTP ' || $3::text, $3::int
           FROM generate_series(1, $2::int) g`,
        [bot.botId, n, code],
      );
    await seed(noisy, 12, 503);
    await seed(quiet, 3, 404);

    profile = mkdtempSync(join(tmpdir(), 'console-chromium-'));
    // A fresh profile per run: nothing cached or signed in from an earlier run.
    browser = await chromium
      .launchPersistentContext(profile, {
        executablePath: executable.path,
        headless: true,
        viewport: { width: 1280, height: 1400 },
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      })
      .catch((error: Error) => {
        throw new Error(`Chromium from ${executable.source} (${executable.path}) did not start: ${error.message}`);
      });
    page = browser.pages()[0] ?? (await browser.newPage());
    // The page must work without third-party network access: anything not from bot-api is refused.
    await page.route('**/*', (route) =>
      route.request().url().startsWith(base) ? route.continue() : route.abort('blockedbyclient'),
    );
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await ctx?.close();
    await world?.receiver.close();
  });

  it('serves the page from its own origin with a strict content security policy', async () => {
    const res = await request(ctx.app.getHttpServer()).get('/console').expect(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.headers['content-security-policy']).toMatch(/script-src 'self'/);
    expect(res.text).not.toMatch(/https?:\/\//);
    await request(ctx.app.getHttpServer())
      .get('/console/console.js')
      .expect(200)
      .expect('Content-Type', /javascript/);
  });

  it('signs in, filters, runs a dry run and a bulk redrive to 100 %, and shows the audit log', async () => {
    const failedRequests: string[] = [];
    page.on('requestfailed', (req) => failedRequests.push(req.url()));
    await page.goto(`${base}/console`);
    await page.getByLabel('Staff token').fill(await ctx.jwt(STAFF, 'SRE', ['platform_admin']));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#who').getByText(`Signed in as SRE (${STAFF})`).waitFor();
    await page.locator('#summary-status').getByText('dead_letter: 15').waitFor();
    await page.locator('#summary-bots tr').first().getByText(noisy.botId).waitFor();

    await page.getByLabel('Error').selectOption('http_5xx');
    await page.getByRole('button', { name: 'Apply filter' }).click();
    // The unfiltered list (15 rows) is on screen until the filtered answer replaces it.
    await rowCount(page, '#deliveries tr', 12);

    await page.locator('#deliveries tr').first().getByRole('button', { name: 'Open' }).click();
    await page
      .locator('#payload')
      .getByText(/"text": "hello \d+"/)
      .waitFor();
    await page.locator('#detail-fields').getByText('http_5xx').waitFor();

    await page.getByRole('button', { name: 'Dry run' }).click();
    await page.locator('#dry-result').getByText('12 dead letter(s) of 1 bot(s)').waitFor();
    await page.getByLabel('Rate per bot (per second)').fill('40');
    // No bot in the filter: the console asks before a redrive of every bot, with the count it will take.
    const questions: string[] = [];
    page.once('dialog', (dialog) => {
      questions.push(dialog.message());
      void dialog.accept();
    });
    await page.getByRole('button', { name: 'Start redrive' }).click();
    await page
      .locator('#job-text')
      .getByText(/completed, 100 %/)
      .waitFor({ timeout: 15_000 });
    expect(questions).toEqual(['Redeliver 12 dead letter(s) of 1 bot(s), across every bot?']);
    expect(await page.locator('#job-progress').evaluate((el) => (el as unknown as { value: number }).value)).toBe(100);
    await page.locator('#audit').getByText('redrive.start').waitFor();
    // Two dry runs: the operator's, and the count taken again for the confirmation of an all-bots redrive.
    await page.locator('#audit').getByText('redrive.dry_run').nth(1).waitFor();

    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, 'staff-console.png'), fullPage: true });
    expect(existsSync(join(SCREENSHOTS, 'staff-console.png'))).toBe(true);
    expect(failedRequests).toEqual([]);

    const statuses: Array<{ status: string; count: string }> = await ctx.app
      .get(DataSource)
      .query(`SELECT status, count(*) FROM webhook_deliveries WHERE bot_id = $1 GROUP BY status`, [noisy.botId]);
    expect(statuses).toEqual([{ status: 'pending', count: '12' }]);
    const untouched: Array<{ count: string }> = await ctx.app
      .get(DataSource)
      .query(`SELECT count(*) FROM webhook_deliveries WHERE bot_id = $1 AND status = 'dead_letter'`, [quiet.botId]);
    expect(untouched[0].count).toBe('3');
  }, 60_000);
});
