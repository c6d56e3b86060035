/**
 * The rules of the Kubernetes kit that a rendered overlay shows, beyond schemas and pod hardening
 * (lint-k8s.ts): what a platform team would otherwise find only once it applies the kit.
 *
 * - The edge: every public route of the OpenAPI documents reaches its service through the Ingresses (the
 *   internal ones never reach bot-api), with room for 50 MB uploads on the routes that take them and a
 *   small body limit everywhere else.
 * - The connection budget: the pools of every Deployment at its maxReplicas, plus its rollout surge, fit
 *   PostgreSQL's max_connections less the reserve the overlay states.
 * - Tracing: each Deployment that exports spans may reach its collector under its NetworkPolicies.
 * - No placeholder (an example host) left in an overlay other than dev's; runbook links absolute.
 * - No Namespace or default-deny policy in an overlay: deleting one service must not remove them.
 * - Memory limits at or above the floor the images' heap setting needs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

type Json = Record<string, any>;

// ---------------------------------------------------------------------------------------------------
// Shared helpers

/** The apps this repository builds, recognised by the last segment of the image, whatever the registry. */
export const APPS = ['voucher-api', 'bot-api', 'bot-dispatcher'] as const;
export type App = (typeof APPS)[number];

export function appOfImage(image: string | undefined): App | undefined {
  const name = /(?:^|\/)([a-z-]+)(?::[^/]*|@sha256:.*)?$/.exec(image ?? '')?.[1];
  return (APPS as readonly string[]).includes(name ?? '') ? (name as App) : undefined;
}

/** A Kubernetes quantity in bytes (`384Mi`, `1G`, `512000`). */
export function bytesOf(quantity: string | number): number {
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(String(quantity));
  if (!match) return Number.NaN;
  const unit = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, k: 1e3, M: 1e6, G: 1e9, T: 1e12 }[
    match[2] as 'Ki'
  ];
  return Number(match[1]) * (unit ?? 1);
}

function podSpec(object: Json): Json | undefined {
  return object.kind === 'Deployment' || object.kind === 'Job' ? object.spec?.template?.spec : undefined;
}

function configMapsOf(objects: Json[]): Map<string, Json> {
  return new Map(objects.filter((o) => o.kind === 'ConfigMap').map((o) => [o.metadata?.name, o]));
}

/** A setting of a container as the pod sees it: `env` first, then its ConfigMaps (`envFrom`). */
function settingOf(container: Json, configMaps: Map<string, Json>, key: string): string | undefined {
  const entry = (container.env ?? []).find((e: Json) => e.name === key);
  if (entry) {
    const ref = entry.valueFrom?.configMapKeyRef;
    return ref ? configMaps.get(ref.name)?.data?.[ref.key] : entry.value;
  }
  for (const source of container.envFrom ?? []) {
    const value = configMaps.get(source.configMapRef?.name)?.data?.[key];
    if (value !== undefined) return value;
  }
  return undefined;
}

function matchesSelector(selector: Json | undefined, labels: Json | undefined): boolean {
  const byLabel = Object.entries(selector?.matchLabels ?? {}).every(([key, value]) => labels?.[key] === value);
  const byExpression = (selector?.matchExpressions ?? []).every((e: Json) =>
    e.operator === 'In'
      ? e.values.includes(labels?.[e.key])
      : e.operator === 'NotIn'
        ? !e.values.includes(labels?.[e.key])
        : false,
  );
  return byLabel && byExpression;
}

const name = (o: Json) => `${o.kind}/${o.metadata?.name}`;

// ---------------------------------------------------------------------------------------------------
// The edge

/** nginx's size syntax (`2m`, `64m`, `512k`, bytes); ingress-nginx's default when the annotation is absent is 1m. */
export function nginxBytes(size: string | undefined): number {
  const match = /^(\d+)([kmg])?$/i.exec(size ?? '1m');
  if (!match) return Number.NaN;
  const unit: Record<string, number> = { '': 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30 };
  // 0 turns ingress-nginx's check off: any size passes.
  return Number(match[1]) === 0 ? Infinity : Number(match[1]) * unit[(match[2] ?? '').toLowerCase()];
}

/** Express's `1mb`, `100kb`, `512` (the BODY_LIMIT syntax, 1024 multiples as the `bytes` package reads it). */
export function expressBytes(limit: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i.exec(limit.trim());
  if (!match) return Number.NaN;
  return Math.floor(
    Number(match[1]) * { b: 1, kb: 2 ** 10, mb: 2 ** 20, gb: 2 ** 30 }[(match[2] ?? 'b').toLowerCase() as 'b'],
  );
}

export interface PublicRoute {
  app: App;
  method: string;
  /** The OpenAPI path, e.g. `/bot{token}/{method}`. */
  path: string;
  internal: boolean;
  /** The operation takes a file of up to MAX_FILE_SIZE in its body. */
  upload: boolean;
}

/**
 * Routes whose body carries a file: the Telegram face's calls (multipart InputFile parts, docs/telegram.md;
 * the face parses its own bodies, so its OpenAPI operation declares none) and, generically, any operation
 * whose declared body is binary or multipart (the disk driver's upload).
 */
const TELEGRAM_METHOD_ROUTE = /^(\/telegram)?\/bot\{token\}\/\{method\}$/;
const FILE_BODY_TYPES = ['application/octet-stream', 'multipart/form-data'];
const BODY_METHODS = new Set(['post', 'put', 'patch']);
/** Routes of every process that are not public: probes and Prometheus reach the pods directly. */
const POD_ONLY_ROUTES = new Set(['/health/live', '/health/ready', '/metrics']);

/** Every operation of the apps' OpenAPI documents (docs/openapi), as the edge must route it. */
export function publicRoutes(root: string): PublicRoute[] {
  return (['voucher-api', 'bot-api'] as const).flatMap((app) => {
    const document = JSON.parse(readFileSync(join(root, 'docs/openapi', `${app}.json`), 'utf8'));
    return Object.entries<Json>(document.paths).flatMap(([path, item]) =>
      Object.entries<Json>(item)
        .filter(([method]) => ['get', 'put', 'post', 'patch', 'delete'].includes(method))
        .filter(() => !POD_ONLY_ROUTES.has(path))
        .map(([method, operation]) => ({
          app,
          method,
          path,
          internal: (operation.tags ?? []).includes('internal'),
          upload:
            TELEGRAM_METHOD_ROUTE.test(path) ||
            Object.keys(operation.requestBody?.content ?? {}).some((type) => FILE_BODY_TYPES.includes(type)),
        })),
    );
  });
}

/** A request path for an OpenAPI path: each `{parameter}` filled with a value of its usual shape. */
export function samplePath(path: string): string {
  return path
    .replace('{token}', 'sbot_3f9c2a7d41b04e6f8a1c')
    .replace('{method}', 'sendDocument')
    .replace('{path}', 'documents/report.pdf')
    .replace(/\{[^}]+\}/g, 'a1b2c3');
}

interface EdgeRoute {
  ingress: string;
  path: string;
  pathType: string;
  service: string;
  bodyLimit: number;
  host: string;
}

function edgeRoutes(objects: Json[]): EdgeRoute[] {
  return objects
    .filter((o) => o.kind === 'Ingress')
    .flatMap((ingress) =>
      (ingress.spec?.rules ?? []).flatMap((rule: Json) =>
        (rule.http?.paths ?? []).map((p: Json) => ({
          ingress: ingress.metadata.name,
          path: p.path,
          pathType: p.pathType,
          service: p.backend?.service?.name,
          bodyLimit: nginxBytes(ingress.metadata.annotations?.['nginx.ingress.kubernetes.io/proxy-body-size']),
          host: rule.host,
        })),
      ),
    );
}

/**
 * The route ingress-nginx picks for a request path: an Exact path first, then the longest of the
 * matching ones. Prefix matches whole segments; ImplementationSpecific is nginx's own prefix match on
 * characters (ingress-nginx without regular expressions), which the Telegram root paths need.
 */
export function routeOf(routes: EdgeRoute[], requestPath: string): EdgeRoute | undefined {
  const exact = routes.find((r) => r.pathType === 'Exact' && r.path === requestPath);
  if (exact) return exact;
  const matching = routes.filter((r) => {
    if (r.pathType === 'Prefix') {
      const base = r.path.replace(/\/+$/, '');
      return base === '' || requestPath === base || requestPath.startsWith(`${base}/`);
    }
    return r.pathType === 'ImplementationSpecific' && requestPath.startsWith(r.path);
  });
  return matching.sort((a, b) => b.path.length - a.path.length)[0];
}

/** Each public route reaches its app with room for its body; internal ones never reach bot-api. */
export function edgeProblems(objects: Json[], routes: PublicRoute[], maxFileBytes: number): string[] {
  const edge = edgeRoutes(objects);
  if (edge.length === 0) return [];
  const problems: string[] = [];
  const configMaps = configMapsOf(objects);
  const hosts = new Set(edge.map((r) => r.host));
  if (hosts.size !== 1)
    problems.push(`the Ingresses serve ${hosts.size} hosts (${[...hosts].join(', ')}); the docs promise one`);
  for (const ingress of objects.filter((o) => o.kind === 'Ingress')) {
    const tlsHosts = (ingress.spec?.tls ?? []).flatMap((t: Json) => t.hosts ?? []);
    for (const host of new Set((ingress.spec?.rules ?? []).map((r: Json) => r.host)))
      if (!tlsHosts.includes(host)) problems.push(`${name(ingress)}: host ${host} has no TLS`);
  }
  for (const route of routes) {
    const request = samplePath(route.path);
    const where = `${route.method.toUpperCase()} ${route.path} (${request})`;
    const chosen = routeOf(edge, request);
    if (route.internal) {
      if (chosen?.service === 'bot-api')
        problems.push(`${where}: internal route of bot-api reachable through Ingress/${chosen.ingress}`);
      continue;
    }
    if (!chosen) {
      problems.push(`${where}: no Ingress routes it (the ingress answers 404)`);
      continue;
    }
    if (chosen.service !== route.app) {
      problems.push(`${where}: routed to ${chosen.service} by Ingress/${chosen.ingress}, not to ${route.app}`);
      continue;
    }
    const bodyLimit = configMaps.get(`${route.app}-config`)?.data?.BODY_LIMIT ?? '1mb';
    if (route.upload && !(chosen.bodyLimit >= maxFileBytes)) {
      problems.push(
        `${where}: Ingress/${chosen.ingress} lets ${chosen.bodyLimit} bytes through, below the ${maxFileBytes} bytes of a file upload`,
      );
    }
    if (!route.upload && !(chosen.bodyLimit >= expressBytes(bodyLimit))) {
      problems.push(`${where}: Ingress/${chosen.ingress} refuses bodies the app accepts (BODY_LIMIT ${bodyLimit})`);
    }
    // A GET shares its path with the uploads of that path (nginx cannot tell them apart); it sends no body.
    if (!route.upload && BODY_METHODS.has(route.method) && chosen.bodyLimit >= maxFileBytes) {
      problems.push(`${where}: Ingress/${chosen.ingress} lets upload-sized bodies through to a route that takes none`);
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------------
// The connection budget

/**
 * Connections a pod of each app may open besides its DB_POOL_SIZE pool, in the PostgreSQL-only mode (the
 * Redis mode adds none): the rate-limit store's pool (RATE_LIMIT_POOL_SIZE, libs/rate-limits), the channel
 * bus's LISTEN connection and its notify pool of two (libs/coordination/src/channels/postgres-channel-bus.ts),
 * and for each BullMQ queue or worker the app runs, a pool of up to QUEUE_POOL_MAX
 * (libs/coordination/src/queue-connection.ts) and its own LISTEN connection. Queues and workers per app:
 * voucher-api its periodic queue and worker; bot-api the webhook queue it adds to, the redrive queue and
 * worker, its periodic queue and worker; bot-dispatcher the webhook queue and worker, its periodic queue
 * and worker. scripts/lint-k8s-rules.spec.ts checks the constants against the code.
 */
export const POSTGRES_ONLY_POOLS = { rateLimits: 4, channelBus: 1 + 2, queuePool: 10, queueListen: 1 };
export const QUEUE_CLIENTS: Record<App, number> = { 'voucher-api': 2, 'bot-api': 5, 'bot-dispatcher': 4 };

export function connectionsPerPod(app: App, backend: string | undefined, poolSize: number): number {
  if (backend !== 'postgres') return poolSize;
  const { rateLimits, channelBus, queuePool, queueListen } = POSTGRES_ONLY_POOLS;
  return poolSize + rateLimits + channelBus + QUEUE_CLIENTS[app] * (queuePool + queueListen);
}

const MAX_CONNECTIONS = 'open-platform.io/postgres-max-connections';
const RESERVED_CONNECTIONS = 'open-platform.io/postgres-reserved-connections';

function surgeOf(deployment: Json, replicas: number): number {
  const surge = deployment.spec?.strategy?.rollingUpdate?.maxSurge ?? '25%';
  return typeof surge === 'number' ? surge : Math.ceil((replicas * Number.parseFloat(surge)) / 100);
}

export interface ConnectionBudget {
  budget: number;
  used: number;
  lines: string[];
}

/** The budget the overlay states (its autoscalers' annotations) and what its Deployments may use of it. */
export function connectionBudget(objects: Json[]): { budget?: ConnectionBudget; problems: string[] } {
  const problems: string[] = [];
  const configMaps = configMapsOf(objects);
  const hpas = objects.filter((o) => o.kind === 'HorizontalPodAutoscaler');
  const stated = new Set(
    hpas.map((h) => `${h.metadata?.annotations?.[MAX_CONNECTIONS]}/${h.metadata?.annotations?.[RESERVED_CONNECTIONS]}`),
  );
  const lines: string[] = [];
  let used = 0;
  for (const deployment of objects.filter((o) => o.kind === 'Deployment')) {
    const container = deployment.spec.template.spec.containers[0];
    const app = appOfImage(container.image);
    if (!app) continue;
    const hpa = hpas.find((h) => h.spec?.scaleTargetRef?.name === deployment.metadata.name);
    const replicas = hpa?.spec?.maxReplicas ?? deployment.spec?.replicas ?? 1;
    const pods = replicas + surgeOf(deployment, replicas);
    const pool = Number(settingOf(container, configMaps, 'DB_POOL_SIZE') ?? 10);
    const backend = settingOf(container, configMaps, 'COORDINATION_BACKEND');
    const perPod = connectionsPerPod(app, backend, pool);
    used += pods * perPod;
    lines.push(`${app}: ${pods} pods (maxReplicas ${replicas} + surge) × ${perPod} = ${pods * perPod}`);
  }
  if (lines.length === 0) return { problems };
  if (stated.size !== 1 || [...stated][0].includes('undefined')) {
    problems.push(`the autoscalers state no single connection budget (${MAX_CONNECTIONS}, ${RESERVED_CONNECTIONS})`);
    return { problems };
  }
  const [max, reserved] = [...stated][0].split('/').map(Number);
  const budget = max - reserved;
  if (!(budget > 0)) problems.push(`the connection budget ${max} - ${reserved} leaves nothing for the pools`);
  else if (used > budget)
    problems.push(
      `the pools may open ${used} PostgreSQL connections, over the budget of ${budget} (max_connections ${max} - reserved ${reserved}): ${lines.join('; ')}`,
    );
  return { budget: { budget, used, lines }, problems };
}

// ---------------------------------------------------------------------------------------------------
// Egress to the tracing collector

/** The namespace a cluster host name points into (`svc.ns.svc.cluster.local`, `svc.ns`), or undefined outside. */
function clusterNamespace(host: string, own: string | undefined): string | undefined {
  const labels = host.split('.');
  if (labels.length === 1) return own;
  if (labels.length === 2 || labels[2] === 'svc') return labels[1];
  return undefined;
}

function allowsPort(rule: Json, port: number): boolean {
  return !rule.ports || rule.ports.some((p: Json) => p.port === port || p.port === String(port));
}

/** Each Deployment that exports spans (OTEL_EXPORTER_OTLP_ENDPOINT) may reach the collector's namespace and port. */
export function collectorEgressProblems(objects: Json[]): string[] {
  const problems: string[] = [];
  const configMaps = configMapsOf(objects);
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
  for (const deployment of objects.filter((o) => o.kind === 'Deployment')) {
    const container = deployment.spec.template.spec.containers[0];
    const endpoint = settingOf(container, configMaps, 'OTEL_EXPORTER_OTLP_ENDPOINT');
    if (!endpoint) continue;
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      problems.push(`${name(deployment)}: OTEL_EXPORTER_OTLP_ENDPOINT ${endpoint} is not a URL`);
      continue;
    }
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    const namespace = clusterNamespace(url.hostname, deployment.metadata.namespace);
    const labels = deployment.spec.template.metadata?.labels;
    const rules = policies
      .filter((p) => (p.spec?.policyTypes ?? []).includes('Egress') && matchesSelector(p.spec.podSelector, labels))
      .flatMap((p) => p.spec.egress ?? []);
    const reaches = rules.some(
      (rule: Json) =>
        allowsPort(rule, port) &&
        (!rule.to ||
          rule.to.some((peer: Json) =>
            namespace === undefined
              ? peer.ipBlock !== undefined
              : peer.namespaceSelector !== undefined &&
                matchesSelector(peer.namespaceSelector, { 'kubernetes.io/metadata.name': namespace }) &&
                (!peer.podSelector || Object.keys(peer.podSelector).length === 0),
          )),
    );
    if (!reaches)
      problems.push(
        `${name(deployment)}: exports spans to ${endpoint}, but no NetworkPolicy lets it reach ${namespace ? `namespace ${namespace}` : url.hostname} on port ${port}`,
      );
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------------
// Placeholders, runbooks, namespaces, memory

/** Host names reserved for examples (RFC 2606, RFC 6761): a value a team has not set yet. */
const PLACEHOLDER =
  /(^|[./@:])(example\.(com|net|org|internal)|[a-z0-9-]+\.example|[a-z0-9.-]+\.invalid)(?=$|[/:.?#"'\s])/i;

/** The versions an app has released: the headings `# <version>` of its CHANGELOG.md, which `nx release` writes. */
export function releasedVersions(root: string, app: App): Set<string> {
  const changelog = readFileSync(join(root, 'apps', app, 'CHANGELOG.md'), 'utf8');
  return new Set([...changelog.matchAll(/^#{1,2} \[?(\d+\.\d+\.\d+(?:-[\w.]+)?)\]?/gm)].map((match) => match[1]));
}

/**
 * Every image of this repository in an overlay a team applies is pinned to a version its app has released
 * (docs/deployment.md#releases): never `latest`, a branch name or a version nobody built.
 */
export function releasePinProblems(objects: Json[], root: string): string[] {
  const problems: string[] = [];
  const released = new Map(APPS.map((app) => [app, releasedVersions(root, app)]));
  const tags = new Map<App, Set<string>>();
  for (const object of objects) {
    const pod = podSpec(object);
    for (const container of [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])]) {
      const app = appOfImage(container.image);
      if (!app) continue;
      const tag = /:([^/:@]+)$/.exec(container.image)?.[1];
      tags.set(app, (tags.get(app) ?? new Set()).add(tag ?? ''));
      if (!tag || !released.get(app)!.has(tag)) {
        problems.push(
          `${name(object)} container ${container.name}: image ${container.image} is not a released ${app} version (apps/${app}/CHANGELOG.md)`,
        );
      }
    }
  }
  for (const [app, seen] of tags) {
    if (seen.size > 1) problems.push(`the ${app} images carry different tags: ${[...seen].sort().join(', ')}`);
  }
  return problems;
}

export function placeholderProblems(objects: Json[]): string[] {
  const problems: string[] = [];
  const walk = (value: unknown, path: string, object: Json) => {
    if (typeof value === 'string') {
      if (PLACEHOLDER.test(value))
        problems.push(
          `${name(object)} ${path}: placeholder "${value}" left (set it in k8s/settings/<env>/settings.env)`,
        );
    } else if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${path}/${i}`, object));
    else if (value && typeof value === 'object')
      for (const [key, child] of Object.entries(value)) walk(child, `${path}/${key}`, object);
  };
  for (const object of objects) walk(object, '', object);
  return problems;
}

/** Each alert links to the team's published guide (RUNBOOK_URL of the settings), not to a path of this repository. */
export function runbookProblems(objects: Json[]): string[] {
  return objects
    .filter((o) => o.kind === 'PrometheusRule')
    .flatMap((rule) =>
      (rule.spec?.groups ?? []).flatMap((group: Json) =>
        (group.rules ?? [])
          .filter((r: Json) => r.alert && !/^https?:\/\/[^/]+.*#.+$/.test(r.annotations?.runbook_url ?? ''))
          .map(
            (r: Json) =>
              `${name(rule)} alert ${r.alert}: runbook_url ${r.annotations?.runbook_url} is not a link to a published guide`,
          ),
      ),
    );
}

/** An overlay of services never holds what the namespace shares: deleting it would remove them for every service. */
export function sharedObjectProblems(objects: Json[]): string[] {
  return objects
    .filter(
      (o) =>
        o.kind === 'Namespace' || (o.kind === 'NetworkPolicy' && Object.keys(o.spec?.podSelector ?? {}).length === 0),
    )
    .map((o) => `${name(o)}: belongs to k8s/namespaces/<env>; \`kubectl delete -k\` of this overlay would delete it`);
}

/** The images' NODE_OPTIONS let V8's heap reach about 300 MB (docs/operations.md#memory). */
export const MEMORY_FLOOR = '384Mi';

export function memoryFloorProblems(objects: Json[]): string[] {
  const problems: string[] = [];
  for (const object of objects) {
    const pod = podSpec(object);
    for (const container of [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])]) {
      if (!appOfImage(container.image)) continue;
      const limit = container.resources?.limits?.memory;
      if (!(bytesOf(limit) >= bytesOf(MEMORY_FLOOR)))
        problems.push(
          `${name(object)} container ${container.name}: memory limit ${limit} is below the floor of ${MEMORY_FLOOR}`,
        );
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------------
// Settings

/** The keys a settings file must hold before an overlay renders: each `#   NAME=` line of its REQUIRED list. */
export function requiredSettings(settingsFile: string): string[] {
  const text = readFileSync(settingsFile, 'utf8');
  const required = text.split(/^# REQUIRED.*$/m)[1]?.split(/^#\s*$/m)[0] ?? '';
  return [...required.matchAll(/^#\s+([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]);
}

/** The keys the file sets (`NAME=value` lines, as Kustomize's env files hold them). */
export function givenSettings(settingsFile: string): Record<string, string> {
  const lines = readFileSync(settingsFile, 'utf8').split('\n');
  return Object.fromEntries(
    lines.flatMap((line) => {
      const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
      return match ? [[match[1], match[2]]] : [];
    }),
  );
}
