import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createEmptyDatabase,
  deleteRedisKeys,
  HttpsReceiver,
  quietPeriod,
  startHttpsReceiver,
  TestDatabase,
  testDataSource,
  testEnv,
  waitUntil,
} from '@app/testing';
import { Fleet, migrate } from './fleet';
import {
  AppBuild,
  AppName,
  APPS,
  buildCurrent,
  buildPrevious,
  findPreviousReleases,
  PreviousBuilds,
} from './previous-release';
import { RoundRobinProxy } from './round-robin-proxy';
import { SeededBot, seedBot, seedVouchers } from './seed';
import {
  Acknowledged,
  ApiClient,
  Arrivals,
  heldBackPost,
  Ledger,
  paced,
  Phase,
  pollUpdates,
  receiveWebhook,
  RedeemFigures,
  redeemCycle,
  sendUserMessage,
  VoucherSetup,
} from './traffic';

const ACCOUNT_JWT_SECRET = 'upgrade-test-account-secret-0123456789abcdef';
const WEBHOOK_SECRET = 'upgrade_hook_secret-1';
/** The holder the vouchers issued by requests in flight at a SIGTERM go to. */
const IN_FLIGHT_HOLDER = 'upgrade-holder-in-flight';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Answers each API must give from a given release in a phase before the upgrade moves on. */
const PROGRESS = 30;
/** How long a phase may take to reach PROGRESS on a loaded machine. */
const PROGRESS_TIMEOUT_MS = 90_000;
/** Acknowledged messages still on their way when the traffic stops must arrive within this. */
const DRAIN_TIMEOUT_MS = 90_000;

const began = Date.now();

/** One line of the report, with the seconds since the test began. */
function line(text: string): void {
  process.stdout.write(`[upgrade ${Math.round((Date.now() - began) / 1000)} s] ${text}\n`);
}

/** The one number a counting query answers in `database`. */
async function count(database: string, sql: string): Promise<number> {
  const dataSource = testDataSource(database);
  await dataSource.initialize();
  try {
    const [row]: Array<{ n: number }> = await dataSource.query(sql);
    return row.n;
  } finally {
    await dataSource.destroy();
  }
}

const migrationCount = (database: string) => count(database, 'SELECT count(*)::int AS n FROM migrations');

/** Vouchers with more than one redemption row, whatever the API answered. */
const vouchersRedeemedTwice = (database: string) =>
  count(
    database,
    'SELECT count(*)::int AS n FROM (SELECT voucher_id FROM redemptions GROUP BY voucher_id HAVING count(*) > 1) twice',
  );

describe('upgrade from the previous release to this build, and back', () => {
  let previous: PreviousBuilds | undefined;
  let fleet: Fleet | undefined;
  let receiver: HttpsReceiver | undefined;
  const proxies: RoundRobinProxy[] = [];
  const databases: TestDatabase[] = [];
  const stops: Array<() => Promise<void>> = [];
  const redisPrefix = `upgrade:${randomBytes(5).toString('hex')}:`;
  const fileDir = mkdtempSync(join(tmpdir(), 'upgrade-files-'));

  afterAll(async () => {
    for (const stop of stops.splice(0)) await stop().catch(() => undefined);
    await fleet?.stopAll();
    for (const proxy of proxies) await proxy.close();
    await receiver?.close();
    for (const database of databases) await database.drop();
    await deleteRedisKeys(REDIS_URL, redisPrefix);
    await previous?.remove();
    rmSync(fileDir, { recursive: true, force: true });
  });

  it('serves steady traffic through new migrations, a rolling update of each app and a rollback: no 5xx, no message lost or doubled, no voucher redeemed twice', async () => {
    const releases = findPreviousReleases();
    line(
      `previous release: ${APPS.map((app) => `${app}@${releases[app].version} (${releases[app].foundBy})`).join(', ')}`,
    );
    previous = await buildPrevious(releases);
    const current = await buildCurrent();
    line(`previous release built in a git worktree with ${previous.notes.join('; ')}`);
    line(
      `new build: ${APPS.map((app) => `${app} ${current[app].release.version}`).join(', ')} at ${current['bot-api'].release.commit.slice(0, 7)}`,
    );

    const voucherDb = await createEmptyDatabase('voucher_upgrade');
    databases.push(voucherDb);
    const botDb = await createEmptyDatabase('bot_upgrade');
    databases.push(botDb);
    const arrivals = { webhook: new Arrivals(), polled: new Arrivals() };
    receiver = await startHttpsReceiver({ keepRequests: false });
    receiver.answer(receiveWebhook(WEBHOOK_SECRET, arrivals.webhook));

    const voucherProxy = await RoundRobinProxy.start();
    const botProxy = await RoundRobinProxy.start();
    proxies.push(voucherProxy, botProxy);
    // As each test app's environment, but migrations are the Job's, run while the old replicas serve, and
    // up to three replicas of each app at once (during a rollout) share a PostgreSQL others use too.
    const envOf = (database: string, prefix: string, extra: Record<string, string>) =>
      testEnv(database, `${redisPrefix}${prefix}`, {
        LOG_LEVEL: 'warn',
        MIGRATIONS_RUN: 'false',
        DB_POOL_SIZE: '3',
        DB_POOL_MIN: '1',
        COORDINATION_BACKEND: 'redis',
        ACCOUNT_JWT_SECRET,
        INTERNAL_API_TOKEN: 'upgrade-internal-token-0123456789',
        ...extra,
      });
    const env: Record<AppName, NodeJS.ProcessEnv> = {
      'voucher-api': envOf(voucherDb.name, 'voucher:', {
        BOT_API_URL: botProxy.url,
        RATE_LIMITS: 'issue=1000000,redeem=1000000,me=1000000',
      }),
      'bot-api': envOf(botDb.name, 'bot:', {
        RATE_LIMITS: 'client.read=1000000,client.write=1000000,bot=1000000',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        FILE_STORAGE_DIR: fileDir,
      }),
      'bot-dispatcher': envOf(botDb.name, 'bot:', {
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_CA_FILE: receiver.caFile,
      }),
    };
    const migrateWith = (builds: Record<AppName, AppBuild>) =>
      Promise.all([migrate(builds['voucher-api'], env['voucher-api']), migrate(builds['bot-api'], env['bot-api'])]);

    // The previous release, as deployed: its own migrations, two replicas of each app.
    await migrateWith(previous.builds);
    const migrationsBefore = [await migrationCount(voucherDb.name), await migrationCount(botDb.name)];
    const ledger = new Ledger();
    const redeems = new RedeemFigures();
    const acknowledged = { webhook: new Acknowledged(), polled: new Acknowledged() };
    const vouchers = new ApiClient(voucherProxy.url, ledger);
    const bots = new ApiClient(botProxy.url, ledger);
    let voucherSetup: VoucherSetup | undefined;
    let hookUser: SeededBot['user'] | undefined;
    let heldBack = 0;
    // A request in flight at each SIGTERM of an API replica: an issue, and a message that must be delivered.
    const running = new Fleet(env, { 'voucher-api': voucherProxy, 'bot-api': botProxy }, line, {
      'voucher-api': (replica) => {
        const setup = voucherSetup as VoucherSetup;
        const key = `in-flight-${++heldBack}`;
        return heldBackPost(
          ledger,
          replica,
          '/api/v1/open-platform/vouchers/issue',
          {
            token: setup.appToken,
            headers: { 'idempotency-key': key },
            body: { template_id: setup.templateId, external_issue_id: key, recipient_user_id: IN_FLIGHT_HOLDER },
          },
          (answer) => {
            if (answer.status !== 201) ledger.wrong(`issue in flight at SIGTERM of ${replica.name}`, answer, '201');
          },
        );
      },
      'bot-api': (replica) => {
        const user = hookUser as SeededBot['user'];
        const text = `in-flight-${++heldBack}`;
        return heldBackPost(
          ledger,
          replica,
          `/api/v1/bots/client/chats/${user.chatId}/messages`,
          { token: user.jwt, body: { text } },
          (answer) => {
            if (answer.status === 201) acknowledged.webhook.texts.add(text);
            else ledger.wrong(`message in flight at SIGTERM of ${replica.name}`, answer, '201');
          },
        );
      },
    });
    fleet = running;
    for (const app of APPS)
      await Promise.all([running.start(previous.builds[app]), running.start(previous.builds[app])]);

    const redeemLoops = await seedVouchers(vouchers, ACCOUNT_JWT_SECRET, 2);
    voucherSetup = redeemLoops[0];
    const consent = await vouchers.call('POST', '/api/v1/open-platform/holder/authorizations', {
      token: await voucherSetup.jwtOf(IN_FLIGHT_HOLDER),
      body: { application_id: voucherSetup.applicationId },
    });
    if (consent.status !== 200) throw new Error(`consent: ${consent.status} ${JSON.stringify(consent.body)}`);
    const hookBot = await seedBot(bots, ACCOUNT_JWT_SECRET, 'upgrade hook bot');
    hookUser = hookBot.user;
    const pollBot = await seedBot(bots, ACCOUNT_JWT_SECRET, 'upgrade poll bot');
    const hooked = await bots.call('POST', '/api/v1/bots/setWebhook', {
      token: hookBot.token,
      body: { url: `${receiver.ipUrl}?bot=upgrade`, secret_token: WEBHOOK_SECRET },
    });
    if (hooked.status !== 200) throw new Error(`setWebhook: ${hooked.status} ${JSON.stringify(hooked.body)}`);
    const setupAnswers = ledger.answers;

    // Steady traffic from here to the end.
    const senders = [
      ...redeemLoops.map((setup) => paced(400, (n) => redeemCycle(vouchers, ledger, setup, redeems, n))),
      paced(150, (n) => sendUserMessage(bots, ledger, hookBot.user, `hook-${n}`, acknowledged.webhook)),
      paced(150, (n) => sendUserMessage(bots, ledger, pollBot.user, `poll-${n}`, acknowledged.polled)),
    ];
    const poller = pollUpdates(bots, ledger, pollBot.token, arrivals.polled);
    stops.push(...senders.map((sender) => () => sender.stop()), () => poller.stop());

    /** Waits until each of `replicas` (e.g. `bot-api new`) has answered PROGRESS times in this phase. */
    const progress = (phase: Phase, replicas: string[]) =>
      waitUntil(
        () => replicas.every((replica) => ledger.servedIn(phase, replica) >= PROGRESS),
        `${PROGRESS} answers from each of ${replicas.join(', ')} in the phase "${phase}"`,
        PROGRESS_TIMEOUT_MS,
      );
    const enter = (phase: Phase) => {
      ledger.phase = phase;
      line(`${phase}`);
    };

    try {
      await progress('previous release', ['voucher-api previous', 'bot-api previous']);

      // The new release's migration Jobs, while the previous release serves.
      enter('new migrations running');
      await migrateWith(current);
      const migrationsAfter = [await migrationCount(voucherDb.name), await migrationCount(botDb.name)];
      enter('previous release on the new schema');
      line(
        `new migrations applied while the previous release served: voucher ${migrationsAfter[0] - migrationsBefore[0]}, ` +
          `bot ${migrationsAfter[1] - migrationsBefore[1]}`,
      );
      const webhooksBefore = arrivals.webhook.counts.size;
      await progress('previous release on the new schema', ['voucher-api previous', 'bot-api previous']);
      // The previous dispatchers deliver on the new schema too (no new one runs yet).
      await waitUntil(
        () => arrivals.webhook.counts.size >= webhooksBefore + PROGRESS,
        'webhook deliveries by the previous bot-dispatcher on the new schema',
        PROGRESS_TIMEOUT_MS,
      );

      // A rolling update of each app, one replica at a time, as the kit's Deployments do.
      enter('rolling update');
      for (const app of APPS) await running.roll(app, current[app]);
      enter('new build');
      await progress('new build', ['voucher-api new', 'bot-api new']);

      // One app back to the previous release, on the schema the new one left.
      enter('rolling back bot-api');
      await running.roll('bot-api', previous.builds['bot-api']);
      enter('bot-api rolled back');
      await progress('bot-api rolled back', ['bot-api previous']);

      await Promise.all(senders.map((sender) => sender.stop()));
      const arrived = () =>
        arrivals.webhook.lost(acknowledged.webhook).length === 0 &&
        arrivals.polled.lost(acknowledged.polled).length === 0;
      const drained = () =>
        waitUntil(arrived, 'every acknowledged message delivered and returned', DRAIN_TIMEOUT_MS).catch(
          () => undefined, // what is missing is reported as lost below
        );
      await drained();
      await quietPeriod(2000, 'a second delivery or a second poll result of an Update, if any, arrives within this');
      await poller.stop();

      // The end of the deployment: the new voucher-api and bot-dispatcher stop too, each SIGTERM again with a
      // request in flight; the dispatchers last, once the messages in flight at bot-api's are delivered.
      enter('shutting down');
      for (const replica of [...running.of('voucher-api'), ...running.of('bot-api')]) await running.retire(replica);
      await drained();
      for (const replica of running.of('bot-dispatcher')) await running.retire(replica);

      const lost = [...arrivals.webhook.lost(acknowledged.webhook), ...arrivals.polled.lost(acknowledged.polled)];
      const doubled = [...arrivals.webhook.doubled(), ...arrivals.polled.doubled()];
      const redeemedTwice = Math.max(redeems.redeemedTwice, await vouchersRedeemedTwice(voucherDb.name));
      const oldOnNew = ['voucher-api previous', 'bot-api previous'].map((replica) =>
        ledger.servedFrom('previous release on the new schema', replica),
      );
      const ungraceful = running.retirements.filter((retirement) => !retirement.graceful);

      line(
        `answers of 5xx (or none): ${ledger.failures} of ${ledger.answers - setupAnswers} answers to the traffic; ` +
          `answers other than the flow expects: ${ledger.unexpected}`,
      );
      line(
        `acknowledged messages lost: ${lost.length}, doubled: ${doubled.length} (webhook: ${acknowledged.webhook.texts.size} ` +
          `acknowledged, ${arrivals.webhook.unverified} unverified; getUpdates: ${acknowledged.polled.texts.size} acknowledged)`,
      );
      line(
        `vouchers redeemed twice: ${redeemedTwice} (${redeems.redeemed} redeemed, ${redeems.replayedSame} retries ` +
          `replayed the same redemption, ${redeems.secondRefused} second redeems refused)`,
      );
      line(
        `old code on the new schema: ${oldOnNew[0].answers + oldOnNew[1].answers} answers from the previous release ` +
          `after the new migrations (voucher-api ${oldOnNew[0].answers}, bot-api ${oldOnNew[1].answers}, bot-api ` +
          `also after its rollback), ${oldOnNew[0].problems + oldOnNew[1].problems} of them 5xx or not as expected`,
      );
      line(
        `replicas stopped by SIGTERM: ${running.retirements.length}, not gracefully: ${ungraceful.length}; ` +
          `requests in flight at a SIGTERM: ${heldBack}`,
      );
      for (const detail of ledger.details) line(`problem: ${detail}`);
      for (const retirement of ungraceful) line(`not graceful: ${retirement.name} ${JSON.stringify(retirement.exit)}`);

      expect({
        failures: ledger.failures,
        unexpected: ledger.unexpected,
        lost: lost.slice(0, 10),
        doubled: doubled.slice(0, 10),
        unverified: arrivals.webhook.unverified,
        redeemedTwice,
        oldCodeProblems: oldOnNew[0].problems + oldOnNew[1].problems,
        ungraceful: ungraceful.map((retirement) => retirement.name),
      }).toEqual({
        failures: 0,
        unexpected: 0,
        lost: [],
        doubled: [],
        unverified: 0,
        redeemedTwice: 0,
        oldCodeProblems: 0,
        ungraceful: [],
      });
      expect(redeems.redeemed).toBeGreaterThan(0);
      expect(Math.min(oldOnNew[0].answers, oldOnNew[1].answers)).toBeGreaterThanOrEqual(PROGRESS);
    } catch (error) {
      line(`replica output:\n${running.outputs()}`);
      throw error;
    }
  });
});
