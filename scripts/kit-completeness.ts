/**
 * `npm run test:kit` (and part of `npm test` through kit-completeness.spec.ts): the Kubernetes kit is
 * complete. For every overlay, each container's environment is assembled as the cluster would (its
 * ConfigMaps, literal values, and the Secrets that docs/deployment.md#secrets tells the operator to
 * create, filled with values of the documented shape), and the app's own configuration class loads it
 * with NODE_ENV=production: every setting production requires is there, and none is refused. Besides:
 *
 * - every Secret key a container needs is in the documented commands, and every documented key is
 *   used by some overlay;
 * - the settings whose defaults only make sense on a developer's machine (database host and roles,
 *   Redis) are set;
 * - the one-time database bootstrap of the overlay's environment (k8s/bootstrap/<env>) creates each
 *   database it migrates, with the roles the app and its migration Job connect as;
 * - the environment's namespace entry (k8s/namespaces/<env>) renders the overlay's Namespace and its
 *   default-deny policy, and the overlay a policy for each workload and a ServiceMonitor for each Deployment.
 *
 * The prod and small settings ship without the values only a team knows; the check renders a copy
 * completed as a team would (kitWithTeamSettings, scripts/lint-k8s.settings.env).
 */
import { readFileSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { loadConfig, migrationConfigSchema, ServiceConfig } from '@app/platform';
import { BotConfig } from '../apps/bot-api/src/config/bot.config';
import { DispatcherConfig } from '../apps/bot-dispatcher/src/config/dispatcher.config';
import { VoucherConfig } from '../apps/voucher-api/src/config/voucher.config';
import { findEntryPoints, findOverlays, kitWithTeamSettings, parseManifests, renderOverlay } from './lint-k8s';
import { appOfImage } from './lint-k8s-rules';

type Json = Record<string, any>;

/** The configuration class each app image runs its server with. */
const APP_CONFIGS: Record<string, new () => ServiceConfig> = {
  'voucher-api': VoucherConfig,
  'bot-api': BotConfig,
  'bot-dispatcher': DispatcherConfig,
};

/** Defaults that point at a developer's machine: a cluster must set them. */
const CLUSTER_SETTINGS = ['DB_HOST', 'DB_USER', 'DB_PASSWORD', 'DB_NAME'];
const APP_CLUSTER_SETTINGS = [...CLUSTER_SETTINGS, 'REDIS_URL'];

/** What psql reads from its environment to reach the server as the administrator. */
const PSQL_SETTINGS = ['PGHOST', 'PGPORT', 'PGUSER', 'PGPASSWORD', 'PGDATABASE'];

/** Secret name → its keys, as the `kubectl create secret generic` commands of the docs create them. */
export type DocumentedSecrets = Map<string, Set<string>>;

export function documentedSecrets(markdown: string): DocumentedSecrets {
  const secrets: DocumentedSecrets = new Map();
  for (const command of markdown.split(/(?=kubectl )/)) {
    const name = /^kubectl\b[^\n]*?create secret generic ([a-z0-9-]+)/.exec(command)?.[1];
    if (!name) continue;
    const keys = secrets.get(name) ?? new Set<string>();
    for (const match of command.matchAll(/--from-literal=([A-Z][A-Z0-9_]*)=/g)) keys.add(match[1]);
    secrets.set(name, keys);
  }
  return secrets;
}

/** A value of the shape the docs ask for (`openssl rand -hex 32`, a Redis URL), never a development key. */
function documentedValue(key: string): string {
  if (key === 'REDIS_URL') return 'rediss://:password@redis.example.internal:6380';
  return 'c0ffee'.repeat(11).slice(0, 64);
}

interface ContainerEnv {
  env: Record<string, string>;
  secretRefs: Array<{ secret: string; key: string }>;
  problems: string[];
}

function containerEnv(container: Json, configMaps: Map<string, Json>, secrets: DocumentedSecrets): ContainerEnv {
  const env: Record<string, string> = {};
  const secretRefs: ContainerEnv['secretRefs'] = [];
  const problems: string[] = [];
  const fromSecret = (secret: string, key: string, optional: boolean): string | undefined => {
    if (secrets.get(secret)?.has(key)) {
      secretRefs.push({ secret, key });
      return documentedValue(key);
    }
    if (!optional) problems.push(`needs key ${key} of Secret ${secret}, which the docs do not tell to create`);
    return undefined;
  };
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) {
      const data = configMaps.get(source.configMapRef.name)?.data;
      if (data) Object.assign(env, data);
      else problems.push(`ConfigMap ${source.configMapRef.name} is not part of the overlay`);
    }
    if (source.secretRef) {
      for (const key of secrets.get(source.secretRef.name) ?? [])
        env[key] = fromSecret(source.secretRef.name, key, false)!;
    }
  }
  for (const entry of container.env ?? []) {
    const { configMapKeyRef, secretKeyRef } = entry.valueFrom ?? {};
    let value: string | undefined = entry.value;
    if (configMapKeyRef) {
      value = configMaps.get(configMapKeyRef.name)?.data?.[configMapKeyRef.key];
      if (value === undefined && !configMapKeyRef.optional)
        problems.push(
          `${entry.name} names key ${configMapKeyRef.key} of ConfigMap ${configMapKeyRef.name}, which has none`,
        );
    }
    if (secretKeyRef) value = fromSecret(secretKeyRef.name, secretKeyRef.key, secretKeyRef.optional === true);
    if (value === undefined) delete env[entry.name];
    else env[entry.name] = value;
  }
  return { env, secretRefs, problems };
}

/** The configuration class a container runs with, and the settings a cluster must give it. */
function expectations(container: Json): { schema?: new () => ServiceConfig; required: string[] } | undefined {
  const command: string[] = [...(container.command ?? []), ...(container.args ?? [])];
  const app = appOfImage(container.image ?? '');
  if (app && command.some((part) => /\/database\/migrate\.js$/.test(part))) {
    return { schema: migrationConfigSchema(new APP_CONFIGS[app]().DB_NAME), required: CLUSTER_SETTINGS };
  }
  if (app && command.length === 0) return { schema: APP_CONFIGS[app], required: APP_CLUSTER_SETTINGS };
  if (command.some((part) => /\bpsql\b/.test(part))) {
    const referenced = command.flatMap((part) => [...part.matchAll(/\$\{?([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]));
    return { required: [...new Set([...PSQL_SETTINGS, ...referenced])] };
  }
  return undefined;
}

function podSpecOf(object: Json): Json | undefined {
  return ['Deployment', 'Job', 'StatefulSet', 'DaemonSet', 'CronJob'].includes(object.kind)
    ? (object.spec?.jobTemplate?.spec ?? object.spec)?.template?.spec
    : undefined;
}

export interface KitCheck {
  problems: string[];
  /** `<Secret>/<key>` of every documented key some container of the overlay reads. */
  used: Set<string>;
}

/** Checks one overlay's rendered objects against the configuration classes and the documented Secrets. */
export function checkOverlay(objects: Json[], secrets: DocumentedSecrets): KitCheck {
  const problems: string[] = [];
  const used = new Set<string>();
  const configMaps = new Map(objects.filter((o) => o.kind === 'ConfigMap').map((o) => [o.metadata?.name, o]));
  for (const object of objects) {
    const pod = podSpecOf(object);
    if (!pod) continue;
    for (const container of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) {
      const where = `${object.kind}/${object.metadata?.name} container ${container.name}`;
      const expected = expectations(container);
      if (!expected) {
        problems.push(`${where}: runs neither an app of this repository nor psql; the kit check does not know it`);
        continue;
      }
      const { env, secretRefs, problems: envProblems } = containerEnv(container, configMaps, secrets);
      problems.push(...envProblems.map((problem) => `${where}: ${problem}`));
      for (const { secret, key } of secretRefs) used.add(`${secret}/${key}`);
      for (const name of expected.required) {
        // The PostgreSQL-only mode keeps queues, limits and wake-ups in the database: no Redis to point at.
        if (name === 'REDIS_URL' && env.COORDINATION_BACKEND === 'postgres') continue;
        if (!env[name]) problems.push(`${where}: ${name} is not set (its default only fits a developer's machine)`);
      }
      if (expected.schema) {
        if (env.NODE_ENV !== 'production') problems.push(`${where}: NODE_ENV must be production`);
        try {
          loadConfig(expected.schema, env);
        } catch (error) {
          const lines = (error as { problems?: string[] }).problems ?? [(error as Error).message];
          problems.push(...lines.map((line) => `${where}: ${line}`));
        }
      }
    }
  }
  problems.push(...structureProblems(objects));
  return { problems, used };
}

function selects(selector: Json | undefined, labels: Json | undefined): boolean {
  const matchLabels = Object.entries(selector?.matchLabels ?? {}).every(([key, value]) => labels?.[key] === value);
  const expressions = (selector?.matchExpressions ?? []).every(
    (e: Json) => e.operator === 'In' && e.values.includes(labels?.[e.key]),
  );
  return matchLabels && expressions;
}

/** What an overlay must hold to apply as it is: a policy for each workload, a monitor for each Deployment. */
function structureProblems(objects: Json[]): string[] {
  const problems: string[] = [];
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
  for (const workload of objects.filter((o) => podSpecOf(o))) {
    const labels = workload.spec.template.metadata?.labels;
    const own = policies.filter((p) => Object.keys(p.spec?.podSelector ?? {}).length > 0);
    if (!own.some((p) => selects(p.spec.podSelector, labels)))
      problems.push(`${workload.kind}/${workload.metadata.name}: no NetworkPolicy opens its traffic`);
  }
  for (const deployment of objects.filter((o) => o.kind === 'Deployment')) {
    const labels = deployment.spec.template.metadata?.labels;
    const service = objects.find((o) => o.kind === 'Service' && selects({ matchLabels: o.spec?.selector }, labels));
    const monitored = objects.some(
      (o) => o.kind === 'ServiceMonitor' && service && selects(o.spec?.selector, service.metadata?.labels),
    );
    if (!monitored) problems.push(`Deployment/${deployment.metadata.name}: no ServiceMonitor scrapes its Service`);
  }
  return problems;
}

const componentOf = (o: Json) => o.metadata?.labels?.['app.kubernetes.io/component'];
const appOf = (o: Json) => o.metadata?.labels?.['app.kubernetes.io/name'];
const envValue = (container: Json, key: string) =>
  (container?.env ?? []).find((e: Json) => e.name === key)?.value as string | undefined;
const configValue = (objects: Json[], container: Json, key: string) =>
  envValue(container, key) ??
  (container?.envFrom ?? [])
    .map((source: Json) => objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === source.configMapRef?.name))
    .map((config: Json | undefined) => config?.data?.[key])
    .find((value: string | undefined) => value !== undefined);

/**
 * What the overlay relies on from outside itself: the namespace entry of its environment renders its
 * Namespace and the default-deny policy, and the bootstrap of its environment creates each database the
 * overlay migrates with the roles its app and its migration Job connect as.
 */
export function environmentProblems(overlay: Json[], namespace: Json[], bootstrap: Json[]): string[] {
  const problems: string[] = [];
  const name = overlay.find((o) => o.metadata?.namespace)?.metadata.namespace;
  if (!namespace.some((o) => o.kind === 'Namespace' && o.metadata.name === name))
    problems.push(`its namespace entry renders no Namespace ${name}`);
  if (!namespace.some((o) => o.kind === 'NetworkPolicy' && Object.keys(o.spec?.podSelector ?? {}).length === 0))
    problems.push('its namespace entry renders no default-deny NetworkPolicy');
  for (const migration of overlay.filter((o) => o.kind === 'Job' && componentOf(o) === 'migration')) {
    const app = appOf(migration);
    const job = bootstrap.find((o) => o.kind === 'Job' && componentOf(o) === 'database-bootstrap' && appOf(o) === app);
    if (!job) {
      problems.push(`Job/${migration.metadata.name}: no database bootstrap Job for its database`);
      continue;
    }
    if (job.metadata.namespace !== name)
      problems.push(
        `Job/${job.metadata.name}: bootstraps in namespace ${job.metadata.namespace}, the overlay runs in ${name}`,
      );
    const bootstrapper = job.spec.template.spec.containers[0];
    const migrator = migration.spec.template.spec.containers[0];
    const deployment = overlay.find((o) => o.kind === 'Deployment' && appOf(o) === app);
    const appContainer = deployment?.spec.template.spec.containers[0];
    const expected: Array<[string, string | undefined, string | undefined]> = [
      ['database', envValue(bootstrapper, 'DB_NAME'), configValue(overlay, migrator, 'DB_NAME')],
      ['migrator', envValue(bootstrapper, 'DB_MIGRATION_USER'), envValue(migrator, 'DB_USER')],
    ];
    if (appContainer)
      expected.push(['role', envValue(bootstrapper, 'DB_USER'), configValue(overlay, appContainer, 'DB_USER')]);
    for (const [what, made, used] of expected) {
      if (made !== used) {
        const user = what === 'migrator' ? 'the migration Job' : app;
        problems.push(`Job/${job.metadata.name}: creates ${what} ${made}, but ${user} uses ${used}`);
      }
    }
  }
  return problems;
}

/** The environment an overlay belongs to, whose namespace entry and bootstrap it relies on. */
export function environmentOf(overlay: string): string {
  if (/(^|\/)overlays\/dev(\/|$)/.test(overlay)) return 'dev';
  if (/small/.test(overlay)) return 'small';
  return 'prod';
}

/** Every overlay and entry point under k8s/ (rendered with a team's settings), and the documented keys no overlay uses. */
export function checkKit(root: string, docs = readFileSync(join(root, 'docs/deployment.md'), 'utf8')) {
  const secrets = documentedSecrets(docs);
  const problems: string[] = [];
  const used = new Set<string>();
  if (secrets.size === 0) problems.push('docs/deployment.md: no `kubectl create secret generic` command found');
  const filled = kitWithTeamSettings(root);
  const label = (path: string) => relative(filled, path);
  const overlays = findOverlays(join(filled, 'k8s'));
  try {
    const entries = new Map(
      findEntryPoints(join(filled, 'k8s')).map((entry) => [label(entry), parseManifests(renderOverlay(entry))]),
    );
    for (const [entry, objects] of entries) {
      const result = checkOverlay(objects, secrets);
      problems.push(...result.problems.map((problem) => `${entry}: ${problem}`));
      for (const key of result.used) used.add(key);
    }
    for (const overlay of overlays) {
      const objects = parseManifests(renderOverlay(overlay));
      const result = checkOverlay(objects, secrets);
      const environment = environmentOf(label(overlay));
      const namespaceEntry = entries.get(`k8s/namespaces/${environment}`) ?? [];
      const bootstrap = entries.get(`k8s/bootstrap/${environment}`) ?? [];
      result.problems.push(...environmentProblems(objects, namespaceEntry, bootstrap));
      problems.push(...result.problems.map((problem) => `${label(overlay)}: ${problem}`));
      for (const key of result.used) used.add(key);
    }
  } finally {
    rmSync(filled, { recursive: true, force: true });
  }
  for (const [secret, keys] of secrets) {
    for (const key of keys) {
      if (!used.has(`${secret}/${key}`))
        problems.push(`docs/deployment.md: key ${key} of Secret ${secret} is created but no manifest reads it`);
    }
  }
  return { overlays: overlays.map(label), problems };
}

function main(): void {
  const { overlays, problems } = checkKit(resolve(__dirname, '..'));
  for (const problem of problems) console.error(`error: ${problem}`);
  if (problems.length > 0) process.exit(1);
  console.log(`kit complete: ${overlays.join(', ')}`);
}

if (require.main === module) main();
