import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createEmptyDatabase,
  deleteRedisKeys,
  ServiceProcess,
  startServiceProcess,
  TestDatabase,
  testEnv,
  testRedisPrefix,
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
 * Every series an alert rule or a dashboard panel reads is one the apps really export: the three apps
 * run as deployed (from their main.ts, on their own databases) and their /metrics pages are read.
 */
describe('metrics read by the alert rules and dashboards', () => {
  const processes: ServiceProcess[] = [];
  const databases: TestDatabase[] = [];
  const prefix = testRedisPrefix();
  const exported = new Set<string>(PROMETHEUS_OWN);

  beforeAll(async () => {
    const voucher = await createEmptyDatabase('voucher');
    const bot = await createEmptyDatabase('bot');
    databases.push(voucher, bot);
    const env = (database: string, extra: Record<string, string> = {}) =>
      testEnv(database, prefix, { MIGRATIONS_RUN: 'true', ...extra });
    processes.push(await startServiceProcess('apps/voucher-api/src/main.ts', env(voucher.name), 60_000));
    processes.push(await startServiceProcess('apps/bot-api/src/main.ts', env(bot.name), 60_000));
    processes.push(
      await startServiceProcess('apps/bot-dispatcher/src/main.ts', env(bot.name, { MIGRATIONS_RUN: 'false' }), 60_000),
    );
    for (const service of processes) {
      const page = await (await fetch(`http://127.0.0.1:${service.port}/metrics`)).text();
      for (const name of exportedNames(page)) exported.add(name);
    }
  }, 180_000);

  afterAll(async () => {
    for (const service of processes) await service.stop();
    for (const database of databases) await database.drop();
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
});
