import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEV_ACCOUNT_JWT_SECRET, signAccountJwt } from '@app/auth';
import {
  createEmptyDatabase,
  deleteRedisKeys,
  HttpsReceiver,
  ServiceProcess,
  startHttpsReceiver,
  startServiceProcess,
  TestDatabase,
  testEnv,
  testRedisPrefix,
  waitUntil,
} from '@app/testing';
import { metricNamesIn, ROOT, RULE_SERVICES, rulesOf } from './prometheus-rules';

/**
 * Series Prometheus makes itself for every target, and those of kube-state-metrics that the availability
 * alerts read (a crash-looping container, a container's memory limit): the docs require both.
 */
const PROMETHEUS_OWN = new Set([
  'up',
  'kube_pod_container_status_waiting_reason',
  'kube_pod_container_resource_limits',
]);

/**
 * Gauges with a series per bot: a replica has none before a bot was busy on it (then they stay, at 0,
 * for an hour). A panel reading them falls back to 0 (`or on() vector(0)`) on a replica that never
 * delivered; once one did, their series must be there while it is idle.
 */
const PER_BOT = new Set(['bot_webhook_queue_depth', 'bot_webhook_in_flight']);
const ZERO_FALLBACK = /\bor on\s*\(\s*\)\s*vector\(0\)\s*$/;

/** The series names a /metrics page offers: each `# TYPE`, with a histogram's and a summary's own series. */
function exportedNames(page: string): string[] {
  return [...page.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, name, type]) =>
    type === 'histogram'
      ? [`${name}_bucket`, `${name}_count`, `${name}_sum`]
      : type === 'summary'
        ? [name, `${name}_count`, `${name}_sum`]
        : [name],
  );
}

/** The series names a /metrics page has at least one sample of (a HELP line alone is "No data"). */
function sampledNames(page: string): string[] {
  return [...page.matchAll(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{[^}]*\})? \S+$/gm)].map(([, name]) => name);
}

function dashboardExpressions(): Array<{ where: string; expr: string }> {
  const dir = join(ROOT, 'k8s/monitoring/dashboards');
  return readdirSync(dir).flatMap((file) => {
    const dashboard = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
      panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
    };
    return dashboard.panels.flatMap((panel) =>
      panel.targets.map((target) => ({ where: `${file}: ${panel.title}`, expr: target.expr })),
    );
  });
}

/**
 * Every series an alert rule or a dashboard panel reads is one the apps really export, with a value
 * while they are idle (a panel shows 0, not "No data"; a runbook's "watch it fall" works): the three
 * apps run as deployed (from their main.ts, on their own databases) and their /metrics pages are read,
 * before any work and again after a webhook delivery.
 */
describe('metrics read by the alert rules and dashboards', () => {
  const processes: ServiceProcess[] = [];
  const databases: TestDatabase[] = [];
  const prefix = testRedisPrefix();
  const exported = new Set<string>(PROMETHEUS_OWN);
  let receiver: HttpsReceiver;
  let voucherApi: ServiceProcess;
  let botApi: ServiceProcess;
  let dispatcher: ServiceProcess;

  const metricsOf = async (service: ServiceProcess) => (await fetch(`http://127.0.0.1:${service.port}/metrics`)).text();
  /** What Prometheus sees from idle apps: the second scrape, which the first one's request counts in. */
  const idlePages = async () => {
    for (const service of processes) await metricsOf(service);
    return Promise.all(processes.map(metricsOf));
  };
  const sampled = (pages: string[]) => new Set([...PROMETHEUS_OWN, ...pages.flatMap(sampledNames)]);

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    const voucher = await createEmptyDatabase('voucher');
    const bot = await createEmptyDatabase('bot');
    databases.push(voucher, bot);
    const env = (database: string, extra: Record<string, string> = {}) =>
      testEnv(database, prefix, { MIGRATIONS_RUN: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', ...extra });
    voucherApi = await startServiceProcess('apps/voucher-api/src/main.ts', env(voucher.name), 60_000);
    botApi = await startServiceProcess('apps/bot-api/src/main.ts', env(bot.name), 60_000);
    dispatcher = await startServiceProcess(
      'apps/bot-dispatcher/src/main.ts',
      env(bot.name, { MIGRATIONS_RUN: 'false', WEBHOOK_CA_FILE: receiver.caFile }),
      60_000,
    );
    processes.push(voucherApi, botApi, dispatcher);
    for (const page of await Promise.all(processes.map(metricsOf))) {
      for (const name of exportedNames(page)) exported.add(name);
    }
  }, 180_000);

  afterAll(async () => {
    for (const service of processes) await service.stop();
    for (const database of databases) await database.drop();
    await receiver?.close();
    await deleteRedisKeys(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix);
  });

  const recorded = new Set(
    RULE_SERVICES.flatMap((s) => rulesOf(s).flatMap((rule) => (rule.record ? [rule.record] : []))),
  );
  const readers = [
    ...RULE_SERVICES.flatMap((service) =>
      rulesOf(service).map((rule) => ({ where: `${service}: ${rule.alert ?? rule.record}`, expr: rule.expr })),
    ),
    ...dashboardExpressions(),
  ];
  /** `where: name` of each exported series a reader names that `present` lacks. */
  const missing = (present: Set<string>, skip: (name: string) => boolean = () => false) =>
    readers.flatMap(({ where, expr }) =>
      metricNamesIn(expr)
        .filter((name) => !name.includes(':') && !skip(name) && !present.has(name))
        .map((name) => `${where}: ${name}`),
    );

  it('finds the rules and panels it checks', () => {
    expect(readers.length).toBeGreaterThan(30);
    expect(exported.has('http_requests_total')).toBe(true);
  });

  it('names only series an app exports or a rule records', () => {
    const unknown = readers.flatMap(({ where, expr }) =>
      metricNamesIn(expr)
        .filter((name) => (name.includes(':') ? !recorded.has(name) : !exported.has(name)))
        .map((name) => `${where}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  it('reads a value, not "No data", of every series on apps that have done nothing yet (per-bot series aside)', async () => {
    expect(missing(sampled(await idlePages()), (name) => PER_BOT.has(name))).toEqual([]);
  });

  it('reads per-bot series with a zero fallback, since a replica that never delivered has none', () => {
    const unguarded = readers.filter(
      ({ expr }) => metricNamesIn(expr).some((name) => PER_BOT.has(name)) && !ZERO_FALLBACK.test(expr),
    );
    expect(unguarded.map(({ where, expr }) => `${where}: ${expr}`)).toEqual([]);
  });

  it('reads a value of every series, per-bot ones at 0, once a webhook delivery is done and the apps are idle again', async () => {
    const botId = await deliverOneUpdate();
    const perBot = (page: string, name: string) =>
      new RegExp(`^${name}\\{bot_id="${botId}"\\} (\\d+)$`, 'm').exec(page)?.[1];
    let dispatcherPage = '';
    await waitUntil(async () => {
      dispatcherPage = await metricsOf(dispatcher);
      return [...PER_BOT].every((name) => perBot(dispatcherPage, name) === '0');
    }, 'the delivering bot idle on the dispatcher, its per-bot series at 0');
    expect(missing(sampled(await idlePages()))).toEqual([]);
  }, 60_000);

  /** A bot with a webhook to the test receiver, and one message to it that the receiver takes; its id. */
  async function deliverOneUpdate(): Promise<string> {
    const jwt = (sub: string, roles: string[] = []) =>
      signAccountJwt(DEV_ACCOUNT_JWT_SECRET, { sub, name: sub, roles });
    const call = async (method: string, path: string, token: string, body?: object) => {
      const res = await fetch(`http://127.0.0.1:${botApi.port}/api/v1/bots${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: body ? JSON.stringify(body) : undefined,
      });
      const json = (await res.json()) as { success: boolean; data: Record<string, string> };
      if (!json.success) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json.data;
    };
    const developer = await jwt('dev-metrics');
    const { bot_id: botId } = await call('POST', '/my', developer, { name: 'Metrics' });
    await call('POST', `/admin/bots/${botId}/approve`, await jwt('sre-metrics', ['platform_admin']));
    const { one_time_token: token } = await call('POST', `/my/${botId}/token`, developer);
    await call('POST', '/setWebhook', token, { url: receiver.url, secret_token: 'metrics_secret-1' });
    const user = await jwt('user-metrics');
    const { id: chatId } = await call('POST', '/client/chats/private', user, { bot_id: botId });
    await call('POST', `/client/chats/${chatId}/messages`, user, { text: 'hello' });
    await receiver.waitFor(1, 30_000);
    return botId;
  }
});
