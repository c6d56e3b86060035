/**
 * `npm run lint:k8s`: renders every Kustomize overlay under k8s/ and validates each object offline,
 * then lints the Dockerfiles and the compose file under docker/.
 *
 * - Rendering: `kubectl kustomize` (Kustomize v5 built into kubectl, which the machine image ships).
 * - Schemas: the official Kubernetes OpenAPI schemas as compiled by the `kubernetes-models` package
 *   (and the Prometheus Operator's, for the ServiceMonitors, by `@kubernetes-models/prometheus-operator`)
 *   (types, required fields, enums, formats such as quantities), made strict by walking each object
 *   against the package's generated type declarations with the TypeScript checker, so that an unknown
 *   or misspelt field (`livenesProbe`) is an error, as with kubeconform -strict.
 * - Policy: what docs/operations.md promises (non-root, read-only root filesystem, probes on the health
 *   routes, resources, no Secret values, selectors that match), and the rules of lint-k8s-rules.ts (routes and
 *   body sizes at the edge, the connection budget, egress to the tracing collector, placeholders, shared
 *   objects, memory floor).
 * - Settings: the prod and small settings ship without the values only a team knows, so those overlays do
 *   not render as they are; the lint renders a copy completed with the values of lint-k8s.settings.env, as
 *   a team's filled-in settings would be.
 * - Dockerfiles: `dockerfile-utils` (the Dockerfile language server's validator) plus the image policy.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { MAX_FILE_SIZE } from '../apps/bot-api/src/files/file-types';
import {
  collectorEgressProblems,
  connectionBudget,
  edgeProblems,
  givenSettings,
  memoryFloorProblems,
  placeholderProblems,
  releasePinProblems,
  publicRoutes,
  requiredSettings,
  runbookProblems,
  sharedObjectProblems,
} from './lint-k8s-rules';

type Json = Record<string, any>;

export interface LintResult {
  checked: string[];
  problems: string[];
}

// ---------------------------------------------------------------------------------------------------
// Rendering

/** Directories holding a kustomization.yaml below `<root>/k8s` whose path contains `/overlays/`. */
export function findOverlays(k8sDir: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (!statSync(path).isDirectory()) continue;
      if (existsSync(join(path, 'kustomization.yaml')) && /(^|\/)overlays\//.test(relative(k8sDir, path))) {
        found.push(path);
      }
      walk(path);
    }
  };
  walk(k8sDir);
  return found.sort();
}

/**
 * What a team applies besides the service overlays: each environment's namespace (k8s/namespaces/<env>), its
 * one-time database bootstrap (k8s/bootstrap/<env>) and the dashboards (k8s/monitoring).
 */
export function findEntryPoints(k8sDir: string): string[] {
  const under = (dir: string) =>
    existsSync(join(k8sDir, dir))
      ? readdirSync(join(k8sDir, dir))
          .map((entry) => join(k8sDir, dir, entry))
          .filter((path) => existsSync(join(path, 'kustomization.yaml')))
      : [];
  const monitoring = existsSync(join(k8sDir, 'monitoring/kustomization.yaml')) ? [join(k8sDir, 'monitoring')] : [];
  return [...under('namespaces'), ...under('bootstrap'), ...monitoring].sort();
}

/** kubectl from `KUBECTL` (.ci/run installs one there when the machine has none) or the PATH. */
export function kubectlCommand(env: NodeJS.ProcessEnv = process.env): string {
  return env.KUBECTL || 'kubectl';
}

/** Values of the shape a team gives the settings that ship empty (k8s/settings/<env>/settings.env). */
export const TEAM_SETTINGS = resolve(__dirname, 'lint-k8s.settings.env');

/**
 * A copy of `<root>/k8s` whose settings files hold every required value: those a file lacks are taken from
 * TEAM_SETTINGS. Returns the copy's root (its k8s/ mirrors the original's paths); remove it when done.
 */
export function kitWithTeamSettings(root: string): string {
  const copy = mkdtempSync(join(tmpdir(), 'k8s-settings-'));
  cpSync(join(root, 'k8s'), join(copy, 'k8s'), { recursive: true });
  const team = givenSettings(TEAM_SETTINGS);
  const settingsDir = join(copy, 'k8s/settings');
  for (const env of readdirSync(settingsDir)) {
    const file = join(settingsDir, env, 'settings.env');
    if (!existsSync(file)) continue;
    const given = givenSettings(file);
    const missing = requiredSettings(file).filter((key) => given[key] === undefined);
    const lacking = missing.filter((key) => team[key] === undefined);
    if (lacking.length > 0) throw new Error(`${relative(copy, file)}: no value of the team for ${lacking.join(', ')}`);
    appendFileSync(file, missing.map((key) => `${key}=${team[key]}\n`).join(''));
  }
  return copy;
}

export function renderOverlay(dir: string): string {
  try {
    return execFileSync(kubectlCommand(), ['kustomize', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const failure = error as { code?: string; stderr?: string; message: string };
    if (failure.code === 'ENOENT') throw new Error('kubectl is not installed: it renders the Kustomize overlays');
    throw new Error(`kustomize failed: ${(failure.stderr ?? failure.message).trim()}`);
  }
}

export function parseManifests(text: string): Json[] {
  const objects: Json[] = [];
  for (const document of parseAllDocuments(text, { uniqueKeys: true })) {
    if (document.errors.length > 0) throw new Error(`invalid YAML: ${document.errors[0].message}`);
    const value = document.toJS();
    if (value !== null && value !== undefined) objects.push(value);
  }
  return objects;
}

// ---------------------------------------------------------------------------------------------------
// Schema validation

/** API groups of custom resources the kit uses, and the package that compiles their schemas. */
const CUSTOM_RESOURCE_MODELS: Record<string, string> = {
  'monitoring.coreos.com': '@kubernetes-models/prometheus-operator',
};

function modelModule(apiVersion: string, kind: string): string {
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
  return `${CUSTOM_RESOURCE_MODELS[group] ?? 'kubernetes-models'}/${apiVersion}/${kind}`;
}

function schemaErrors(object: Json): string[] {
  const { apiVersion, kind } = object;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return ['apiVersion and kind are required'];
  let model: { new (data: Json): { validate(): void } } | undefined;
  try {
    model = require(modelModule(apiVersion, kind))[kind];
  } catch {
    model = undefined;
  }
  if (!model) return [`${apiVersion} ${kind} is not a Kubernetes API type known to the schemas`];
  try {
    new model(object).validate();
    return [];
  } catch (error) {
    return (error as Error).message.split(/, (?=data)/).map((line) => line.replace(/^data/, ''));
  }
}

/** Unknown-field detection against the generated declarations, one TypeScript program per lint run. */
class StrictFields {
  private readonly checker: ts.TypeChecker;
  private readonly types = new Map<string, ts.Type>();

  constructor(kinds: Array<{ apiVersion: string; kind: string }>) {
    const unique = [...new Map(kinds.map((k) => [`${k.apiVersion}/${k.kind}`, k])).values()];
    const file = resolve(__dirname, '..', '__kubernetes_types__.ts');
    const source = unique
      .map(
        (k, i) =>
          `import { I${k.kind} as T${i} } from '${modelModule(k.apiVersion, k.kind)}';\nexport declare const v${i}: T${i};`,
      )
      .join('\n');
    // Only the model declarations and ES5's Array: no DOM, no @types packages, so the program stays small.
    const options: ts.CompilerOptions = {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: [],
      lib: ['lib.es5.d.ts'],
      moduleResolution: ts.ModuleResolutionKind.Node10,
    };
    const host = ts.createCompilerHost(options);
    const getSourceFile = host.getSourceFile.bind(host);
    host.getSourceFile = (name, language, ...rest) =>
      resolve(name) === file ? ts.createSourceFile(name, source, language) : getSourceFile(name, language, ...rest);
    const fileExists = host.fileExists.bind(host);
    host.fileExists = (name) => resolve(name) === file || fileExists(name);
    const program = ts.createProgram([file], options, host);
    this.checker = program.getTypeChecker();
    const sourceFile = program.getSourceFile(file);
    const declarations = sourceFile?.statements.filter(ts.isVariableStatement) ?? [];
    unique.forEach((k, i) => {
      const declaration = declarations[i]?.declarationList.declarations[0];
      if (declaration) this.types.set(`${k.apiVersion}/${k.kind}`, this.checker.getTypeAtLocation(declaration.name));
    });
  }

  unknownFields(object: Json): string[] {
    const type = this.types.get(`${object.apiVersion}/${object.kind}`);
    if (!type) return [];
    const problems: string[] = [];
    this.walk(object, type, '', problems);
    return problems;
  }

  private walk(value: unknown, declared: ts.Type, path: string, problems: string[]): void {
    if (value === null || typeof value !== 'object') return;
    let type = this.checker.getNonNullableType(declared);
    if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return;
    if (type.isUnion()) {
      const objects = type.types.filter((member) => member.flags & ts.TypeFlags.Object);
      if (objects.length !== 1) return;
      type = objects[0];
    }
    if (Array.isArray(value)) {
      if (!this.checker.isArrayType(type)) return;
      const element = this.checker.getTypeArguments(type as ts.TypeReference)[0];
      value.forEach((item, index) => this.walk(item, element, `${path}/${index}`, problems));
      return;
    }
    const index = type.getStringIndexType();
    for (const [key, child] of Object.entries(value as Json)) {
      if (index) {
        this.walk(child, index, `${path}/${key}`, problems);
        continue;
      }
      const property = this.checker.getPropertyOfType(type, key);
      if (!property) {
        problems.push(`${path}/${key}: unknown field`);
        continue;
      }
      this.walk(child, this.checker.getTypeOfSymbol(property), `${path}/${key}`, problems);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Policy

const WORKLOADS = new Set(['Deployment', 'Job']);

function podSpecOf(object: Json): Json | undefined {
  return WORKLOADS.has(object.kind) ? object.spec?.template?.spec : undefined;
}

function matches(selector: Json | undefined, labels: Json | undefined): boolean {
  if (!selector || Object.keys(selector).length === 0) return false;
  return Object.entries(selector).every(([key, value]) => labels?.[key] === value);
}

/** A value of the container's environment, from `env` or from its ConfigMaps (`env` wins, as in Kubernetes). */
function containerSetting(container: Json, configMaps: Map<string, Json>, key: string): Json | string | undefined {
  const entry = (container.env ?? []).find((e: Json) => e.name === key);
  if (entry) return entry.value ?? entry.valueFrom;
  for (const source of container.envFrom ?? []) {
    const value = configMaps.get(source.configMapRef?.name)?.data?.[key];
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}

/**
 * An app in production refuses to start without an explicit COORDINATION_BACKEND, and a Redis-mode app
 * needs REDIS_URL; an overlay that forgets either would roll out pods that never become ready. The
 * migration CLI (the Jobs and the dispatcher's init container) needs the database alone.
 */
function coordinationProblems(where: string, container: Json, configMaps: Map<string, Json>): string[] {
  if (containerSetting(container, configMaps, 'NODE_ENV') !== 'production') return [];
  const backend = containerSetting(container, configMaps, 'COORDINATION_BACKEND');
  if (backend !== 'redis' && backend !== 'postgres')
    return [`${where}: COORDINATION_BACKEND must be "redis" or "postgres" (production needs an explicit choice)`];
  if (backend === 'redis' && containerSetting(container, configMaps, 'REDIS_URL') === undefined)
    return [`${where}: COORDINATION_BACKEND=redis needs REDIS_URL (from the Secret)`];
  return [];
}

export function policyProblems(objects: Json[]): string[] {
  const problems: string[] = [...memoryFloorProblems(objects)];
  const name = (o: Json) => `${o.kind}/${o.metadata?.name}`;
  const deployments = objects.filter((o) => o.kind === 'Deployment');
  const configMaps = new Map(objects.filter((o) => o.kind === 'ConfigMap').map((o) => [o.metadata?.name, o]));
  for (const object of objects) {
    if (object.kind === 'Secret')
      problems.push(`${name(object)}: Secret values never live in the manifests; reference the Secret instead`);
    const pod = podSpecOf(object);
    if (pod) {
      if (pod.securityContext?.runAsNonRoot !== true)
        problems.push(`${name(object)}: pod securityContext.runAsNonRoot must be true`);
      if (pod.automountServiceAccountToken !== false)
        problems.push(`${name(object)}: automountServiceAccountToken must be false`);
      for (const container of [...(pod.containers ?? []), ...(pod.initContainers ?? [])]) {
        const where = `${name(object)} container ${container.name}`;
        const security = container.securityContext ?? {};
        if (security.readOnlyRootFilesystem !== true) problems.push(`${where}: readOnlyRootFilesystem must be true`);
        if (security.allowPrivilegeEscalation !== false)
          problems.push(`${where}: allowPrivilegeEscalation must be false`);
        if (!security.capabilities?.drop?.includes('ALL')) problems.push(`${where}: capabilities must drop ALL`);
        if (!container.resources?.requests?.cpu || !container.resources?.requests?.memory)
          problems.push(`${where}: cpu and memory requests are required`);
        if (!container.resources?.limits?.memory) problems.push(`${where}: a memory limit is required`);
        if (typeof container.image !== 'string' || !/:[^/]+$|@sha256:/.test(container.image))
          problems.push(`${where}: the image needs a tag or digest (set it in the overlay)`);
        for (const source of container.envFrom ?? []) {
          const ref = source.configMapRef?.name;
          if (ref && !configMaps.has(ref)) problems.push(`${where}: ConfigMap ${ref} is not part of the overlay`);
        }
        const appContainer = object.kind === 'Deployment' && (pod.containers ?? []).includes(container);
        if (appContainer) problems.push(...coordinationProblems(where, container, configMaps));
      }
    }
    if (object.kind === 'Deployment') {
      for (const container of pod?.containers ?? []) {
        const where = `${name(object)} container ${container.name}`;
        if (container.livenessProbe?.httpGet?.path !== '/health/live')
          problems.push(`${where}: livenessProbe must GET /health/live`);
        if (container.readinessProbe?.httpGet?.path !== '/health/ready')
          problems.push(`${where}: readinessProbe must GET /health/ready`);
        for (const source of container.envFrom ?? []) {
          const config = configMaps.get(source.configMapRef?.name);
          if (config && config.data?.MIGRATIONS_RUN !== 'false')
            problems.push(`${where}: MIGRATIONS_RUN must be "false" (the migration Job migrates)`);
        }
      }
      const scaled = objects.some(
        (o) => o.kind === 'HorizontalPodAutoscaler' && o.spec?.scaleTargetRef?.name === object.metadata?.name,
      );
      if (scaled && object.spec?.replicas !== undefined) {
        problems.push(
          `${name(object)}: drop spec.replicas, the HorizontalPodAutoscaler owns it (apply would reset it)`,
        );
      }
      if (!matches(object.spec?.selector?.matchLabels, object.spec?.template?.metadata?.labels)) {
        problems.push(`${name(object)}: selector does not match the pod labels`);
      }
    }
    if (
      object.kind === 'Service' &&
      !deployments.some((d) => matches(object.spec?.selector, d.spec?.template?.metadata?.labels))
    ) {
      problems.push(`${name(object)}: selects no Deployment of the overlay`);
    }
    if (
      object.kind === 'PodDisruptionBudget' &&
      !deployments.some((d) => matches(object.spec?.selector?.matchLabels, d.spec?.template?.metadata?.labels))
    ) {
      problems.push(`${name(object)}: selects no Deployment of the overlay`);
    }
    if (object.kind === 'HorizontalPodAutoscaler') {
      const target = object.spec?.scaleTargetRef;
      if (!deployments.some((d) => target?.kind === 'Deployment' && d.metadata?.name === target?.name)) {
        problems.push(`${name(object)}: scaleTargetRef names no Deployment of the overlay`);
      }
    }
  }
  return problems;
}

/**
 * The rules a service overlay's rendering must keep (lint-k8s-rules.ts). The dev overlays stand for a shared
 * development cluster and keep its example hosts; every other overlay is one a team applies as it is.
 */
export function overlayProblems(label: string, objects: Json[], root = resolve(__dirname, '..')): string[] {
  if (!/(^|\/)overlays\//.test(label)) return [];
  const development = /(^|\/)overlays\/dev(\/|$)/.test(label);
  return [
    ...edgeProblems(objects, publicRoutes(root), MAX_FILE_SIZE),
    ...connectionBudget(objects).problems,
    ...collectorEgressProblems(objects),
    ...runbookProblems(objects),
    ...sharedObjectProblems(objects),
    ...(development ? [] : [...placeholderProblems(objects), ...releasePinProblems(objects, root)]),
  ];
}

/** Renders and validates overlays; returns every problem instead of stopping at the first. */
export function lintKubernetes(overlays: string[], base = process.cwd()): LintResult {
  const rendered: Array<{ overlay: string; objects: Json[] }> = [];
  const problems: string[] = [];
  for (const overlay of overlays) {
    const label = relative(base, overlay) || overlay;
    try {
      rendered.push({ overlay: label, objects: parseManifests(renderOverlay(overlay)) });
    } catch (error) {
      problems.push(`${label}: ${(error as Error).message}`);
    }
  }
  const strict = new StrictFields(
    rendered.flatMap((r) => r.objects.map((o) => ({ apiVersion: o.apiVersion, kind: o.kind }))),
  );
  for (const { overlay, objects } of rendered) {
    if (objects.length === 0) problems.push(`${overlay}: renders no object`);
    for (const object of objects) {
      const where = `${overlay}: ${object.kind}/${object.metadata?.name}`;
      problems.push(...schemaErrors(object).map((problem) => `${where}: ${problem}`));
      problems.push(...strict.unknownFields(object).map((problem) => `${where}: ${problem}`));
    }
    problems.push(
      ...[...policyProblems(objects), ...overlayProblems(overlay, objects)].map((problem) => `${overlay}: ${problem}`),
    );
  }
  return { checked: rendered.map((r) => `${r.overlay} (${r.objects.length} objects)`), problems };
}

// ---------------------------------------------------------------------------------------------------
// Dockerfiles and compose

interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

function instructions(text: string): Instruction[] {
  const result: Instruction[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let line = lines[i];
    while (/\\\s*$/.test(line) && i + 1 < lines.length) line = line.replace(/\\\s*$/, ' ') + lines[++i].trim();
    const match = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
    if (match && !line.trim().startsWith('#'))
      result.push({ keyword: match[1].toUpperCase(), args: match[2].trim(), line: start + 1 });
  }
  return result;
}

export function lintDockerfile(file: string, base = process.cwd()): string[] {
  const label = relative(base, file) || file;
  const text = readFileSync(file, 'utf8');
  // Loaded lazily: the k8s check does not need it.
  const { validate, ValidationSeverity } = require('dockerfile-utils') as typeof import('dockerfile-utils');
  const problems = validate(text, {
    deprecatedMaintainer: ValidationSeverity.ERROR,
    instructionCasing: ValidationSeverity.ERROR,
  })
    .filter((d) => d.severity === 1 || d.severity === 2)
    .map((d) => `${label}:${d.range.start.line + 1}: ${d.message}`);
  const all = instructions(text);
  const froms = all.filter((i) => i.keyword === 'FROM');
  if (froms.length < 2) problems.push(`${label}: must be a multi-stage build (a build stage and a runtime stage)`);
  const runtime = all.slice(all.lastIndexOf(froms[froms.length - 1]));
  const last = (keyword: string) => runtime.filter((i) => i.keyword === keyword).pop();
  const user = last('USER');
  if (!user || /^(root|0)(:|$)/.test(user.args))
    problems.push(`${label}: the runtime stage must switch to a non-root USER`);
  if (!last('HEALTHCHECK') || /^NONE$/i.test(last('HEALTHCHECK')!.args))
    problems.push(`${label}: the runtime stage needs a HEALTHCHECK`);
  if (!runtime.some((i) => i.keyword === 'ENV' && /\bNODE_ENV=production\b/.test(i.args)))
    problems.push(`${label}: the runtime stage must set NODE_ENV=production`);
  if (!all.some((i) => i.keyword === 'RUN' && /npm ci\b.*--omit=dev/.test(i.args)))
    problems.push(`${label}: production dependencies must come from npm ci --omit=dev`);
  if (runtime.some((i) => i.keyword === 'RUN' && /\bnpm (ci|install)\b(?!.*--omit=dev)/.test(i.args)))
    problems.push(`${label}: the runtime stage must not install development dependencies`);
  if (all.some((i) => i.keyword === 'FROM' && /:latest\b/.test(i.args)))
    problems.push(`${label}: pin the base image, never :latest`);
  return problems;
}

export function lintCompose(file: string, base = process.cwd()): string[] {
  const label = relative(base, file) || file;
  const problems: string[] = [];
  const compose = parseYaml(readFileSync(file, 'utf8'), { merge: true, uniqueKeys: true }) as Json;
  const services: Json = compose?.services ?? {};
  if (Object.keys(services).length === 0) return [`${label}: defines no service`];
  for (const [name, service] of Object.entries<Json>(services)) {
    if (!service.image && !service.build) problems.push(`${label}: ${name} has neither image nor build`);
    if (service.build) {
      const context = resolve(dirname(file), service.build.context ?? '.');
      const dockerfile = resolve(context, service.build.dockerfile ?? 'Dockerfile');
      if (!existsSync(dockerfile)) problems.push(`${label}: ${name} builds from missing ${relative(base, dockerfile)}`);
    }
    const dependsOn = Array.isArray(service.depends_on) ? service.depends_on : Object.keys(service.depends_on ?? {});
    for (const dependency of dependsOn) {
      if (!services[dependency]) problems.push(`${label}: ${name} depends on unknown service ${dependency}`);
    }
  }
  return problems;
}

export function lintDocker(dockerDir: string, base = process.cwd()): LintResult {
  const dockerfiles = readdirSync(dockerDir)
    .filter((f) => f.endsWith('.Dockerfile') || f === 'Dockerfile')
    .map((f) => join(dockerDir, f));
  const problems = dockerfiles.flatMap((file) => lintDockerfile(file, base));
  const compose = join(dockerDir, 'compose.yaml');
  if (existsSync(compose)) problems.push(...lintCompose(compose, base));
  if (dockerfiles.length === 0) problems.push(`${relative(base, dockerDir)}: no Dockerfile found`);
  return { checked: dockerfiles.map((f) => relative(base, f)), problems };
}

// ---------------------------------------------------------------------------------------------------

function main(): void {
  const root = resolve(__dirname, '..');
  const filled = kitWithTeamSettings(root);
  let k8s: LintResult;
  try {
    const k8sDir = join(filled, 'k8s');
    k8s = lintKubernetes([...findOverlays(k8sDir), ...findEntryPoints(k8sDir)], filled);
  } finally {
    rmSync(filled, { recursive: true, force: true });
  }
  const docker = lintDocker(join(root, 'docker'), root);
  for (const line of [...k8s.checked, ...docker.checked]) console.log(`checked ${line}`);
  const problems = [...k8s.problems, ...docker.problems];
  for (const problem of problems) console.error(`error: ${problem}`);
  if (problems.length > 0) {
    console.error(`lint:k8s found ${problems.length} problem(s)`);
    process.exit(1);
  }
  console.log('lint:k8s: every overlay renders and validates; Dockerfiles and compose file pass');
}

if (require.main === module) main();
