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
 * - the database bootstrap creates the roles the app and its migration Job connect as;
 * - the overlay renders its Namespace, the default-deny policy, a policy for each workload, a
 *   ServiceMonitor for each Deployment and the bootstrap Job of each database it migrates.
 */
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { loadConfig, migrationConfigSchema, ServiceConfig } from '@app/platform';
import { BotConfig } from '../apps/bot-api/src/config/bot.config';
import { DispatcherConfig } from '../apps/bot-dispatcher/src/config/dispatcher.config';
import { VoucherConfig } from '../apps/voucher-api/src/config/voucher.config';
import { findOverlays, parseManifests, renderOverlay } from './lint-k8s';

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

/** `registry/open-platform/bot-api:1.0.0` → `bot-api`, for the images this repository builds. */
function appOfImage(image: string): string | undefined {
  const name = /(?:^|\/)open-platform\/([a-z-]+)(?::[^/]*|@sha256:.*)?$/.exec(image)?.[1];
  return name && APP_CONFIGS[name] ? name : undefined;
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
  const roles: Array<{ app: string; kind: string; user?: string; migrator?: string }> = [];
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
      const app = object.metadata?.labels?.['app.kubernetes.io/name'];
      if (app) roles.push({ app, kind: object.kind, user: env.DB_USER, migrator: env.DB_MIGRATION_USER });
    }
  }
  problems.push(...roleProblems(objects, roles), ...structureProblems(objects));
  return { problems, used };
}

function selects(selector: Json | undefined, labels: Json | undefined): boolean {
  const matchLabels = Object.entries(selector?.matchLabels ?? {}).every(([key, value]) => labels?.[key] === value);
  const expressions = (selector?.matchExpressions ?? []).every(
    (e: Json) => e.operator === 'In' && e.values.includes(labels?.[e.key]),
  );
  return matchLabels && expressions;
}

/** What an overlay must hold to apply as it is: its namespace, a policy and a bootstrap for what it runs, monitors. */
function structureProblems(objects: Json[]): string[] {
  const problems: string[] = [];
  if (!objects.some((o) => o.kind === 'Namespace')) problems.push('renders no Namespace');
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
  if (!policies.some((p) => Object.keys(p.spec?.podSelector ?? {}).length === 0))
    problems.push('renders no default-deny NetworkPolicy');
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
  const component = (o: Json) => o.metadata?.labels?.['app.kubernetes.io/component'];
  const appOf = (o: Json) => o.metadata?.labels?.['app.kubernetes.io/name'];
  for (const migration of objects.filter((o) => o.kind === 'Job' && component(o) === 'migration')) {
    const bootstrapped = objects.some(
      (o) => o.kind === 'Job' && component(o) === 'database-bootstrap' && appOf(o) === appOf(migration),
    );
    if (!bootstrapped) problems.push(`Job/${migration.metadata.name}: no database bootstrap Job for its database`);
  }
  return problems;
}

/** The bootstrap creates the role the app connects as and the one its migration Job connects as. */
function roleProblems(objects: Json[], roles: Array<{ app: string; kind: string; user?: string; migrator?: string }>) {
  const problems: string[] = [];
  for (const job of objects.filter(
    (o) => o.kind === 'Job' && o.metadata?.labels?.['app.kubernetes.io/component'] === 'database-bootstrap',
  )) {
    const app = job.metadata.labels['app.kubernetes.io/name'];
    const bootstrap = roles.find((r) => r.app === app && r.migrator !== undefined);
    const appUser = roles.find((r) => r.app === app && r.kind === 'Deployment')?.user;
    const migration = objects.find(
      (o) =>
        o.kind === 'Job' &&
        o.metadata?.labels?.['app.kubernetes.io/name'] === app &&
        o.metadata.labels['app.kubernetes.io/component'] === 'migration',
    );
    const migrationUser = migration?.spec.template.spec.containers[0].env?.find(
      (e: Json) => e.name === 'DB_USER',
    )?.value;
    if (!bootstrap) problems.push(`Job/${job.metadata.name}: sets no DB_MIGRATION_USER`);
    else {
      if (appUser && bootstrap.user !== appUser)
        problems.push(`Job/${job.metadata.name}: creates role ${bootstrap.user}, but ${app} connects as ${appUser}`);
      if (migration && bootstrap.migrator !== migrationUser)
        problems.push(
          `Job/${job.metadata.name}: creates migrator ${bootstrap.migrator}, but the migration Job connects as ${migrationUser}`,
        );
    }
  }
  return problems;
}

/** Every overlay under k8s/, and the documented keys no overlay uses. */
export function checkKit(root: string, docs = readFileSync(join(root, 'docs/deployment.md'), 'utf8')) {
  const secrets = documentedSecrets(docs);
  const problems: string[] = [];
  const used = new Set<string>();
  if (secrets.size === 0) problems.push('docs/deployment.md: no `kubectl create secret generic` command found');
  const overlays = findOverlays(join(root, 'k8s'));
  for (const overlay of overlays) {
    const label = relative(root, overlay);
    const result = checkOverlay(parseManifests(renderOverlay(overlay)), secrets);
    problems.push(...result.problems.map((problem) => `${label}: ${problem}`));
    for (const key of result.used) used.add(key);
  }
  for (const [secret, keys] of secrets) {
    for (const key of keys) {
      if (!used.has(`${secret}/${key}`))
        problems.push(`docs/deployment.md: key ${key} of Secret ${secret} is created but no manifest reads it`);
    }
  }
  return { overlays: overlays.map((overlay) => relative(root, overlay)), problems };
}

function main(): void {
  const { overlays, problems } = checkKit(resolve(__dirname, '..'));
  for (const problem of problems) console.error(`error: ${problem}`);
  if (problems.length > 0) process.exit(1);
  console.log(`kit complete: ${overlays.join(', ')}`);
}

if (require.main === module) main();
