/**
 * The installation and release steps of docs/deployment.md, run as a pipeline would run them against a model
 * of a cluster: each `kubectl apply -k` renders its kustomization (and applies what its label selector picks),
 * each `kubectl delete` and `kubectl wait` acts on what earlier steps made. A step fails where the cluster would:
 *
 * - an object applied into a namespace that does not exist yet, or a Secret created there before it exists;
 * - a Job applied again with another pod template while the previous one is still there (Jobs are immutable);
 * - a wait for a Job or a rollout whose pods could not start or reach their database: a ConfigMap or a Secret
 *   they read is missing, or no NetworkPolicy lets them out of the namespace's default-deny;
 * - a wait that matches nothing (`kubectl wait` fails on "no matching resources").
 *
 * The steps are the shell blocks under a heading of the guide: `NAME=value` assignments, `kubectl` commands
 * (a `kubectl kustomize <dir> | kubectl … -f -` pipe included) and comments; a comment that says to create the
 * Secrets creates those of the guide's Secrets section.
 */
type Json = Record<string, any>;

/** The shell blocks under `### <heading>`, up to the next heading of the same or a higher level. */
export function stepsUnder(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(`\n### ${heading}\n`);
  if (start < 0) throw new Error(`docs/deployment.md has no section "${heading}"`);
  const section = markdown.slice(start + 1).split(/\n#{2,3} /)[0];
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]);
}

/** Words of a command line, with quotes removed and `$NAME` / `${NAME}` expanded. */
function words(line: string, vars: Record<string, string>): string[] {
  const expand = (text: string) => text.replace(/\$\{?([A-Z_][A-Z0-9_]*)\}?/g, (_, name) => vars[name] ?? '');
  const result: string[] = [];
  for (const match of line.matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g)) {
    result.push(match[1] !== undefined ? match[1] : expand(match[2] ?? match[3]));
  }
  return result;
}

/** `kubectl <verb> …` options that matter here. */
interface Command {
  verb: string[];
  namespace?: string;
  kustomization?: string;
  selector?: string;
  fromStdin: boolean;
  targets: string[];
}

function parseKubectl(args: string[]): Command {
  const command: Command = { verb: [], fromStdin: false, targets: [] };
  const positional: string[] = [];
  for (let i = 1; i < args.length; i++) {
    const arg = args[i];
    const value = () => args[++i];
    if (arg === '-n' || arg === '--namespace') command.namespace = value();
    else if (arg.startsWith('--namespace=')) command.namespace = arg.slice('--namespace='.length);
    else if (arg === '-k') command.kustomization = value();
    else if (arg === '-l' || arg === '--selector') command.selector = value();
    else if (arg.startsWith('--selector=')) command.selector = arg.slice('--selector='.length);
    else if (arg === '-f') command.fromStdin = value() === '-';
    else if (!arg.startsWith('-')) positional.push(arg);
  }
  const verbs = positional[0] === 'rollout' ? 2 : 1;
  command.verb = positional.slice(0, verbs);
  command.targets = positional.slice(verbs);
  return command;
}

/** Kubernetes label selectors: `a=b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`, joined by commas. */
export function selects(selector: string | undefined, labels: Record<string, string> = {}): boolean {
  if (!selector) return true;
  const terms = selector.match(/[^,(]+(\([^)]*\))?/g) ?? [];
  return terms.every((raw) => {
    const term = raw.trim();
    const set = /^(\S+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term);
    if (set) {
      const values = set[3].split(',').map((v) => v.trim());
      const has = values.includes(labels[set[1]]);
      return set[2] === 'in' ? has : !has;
    }
    const pair = /^([^!=\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(term);
    if (pair) return pair[2] === '!=' ? labels[pair[1]] !== pair[3] : labels[pair[1]] === pair[3];
    if (term.startsWith('!')) return labels[term.slice(1)] === undefined;
    return labels[term] !== undefined;
  });
}

export interface StepsContext {
  /** Renders a kustomization directory given relative to the repository root. */
  render(dir: string): Json[];
  /** The Secrets the guide tells to create: name → keys. */
  secrets: Map<string, Set<string>>;
}

const keyOf = (o: Json, namespace?: string) =>
  `${o.kind}/${o.kind === 'Namespace' ? '' : (o.metadata?.namespace ?? namespace ?? 'default')}/${o.metadata?.name}`;

/** What an object of the model cluster holds: the applied object and, for a Job, whether it finished. */
export class ModelCluster {
  readonly objects = new Map<string, Json>();
  readonly completed = new Set<string>();
  /** Every object applied, in order, with the step that applied it. */
  readonly applied: Array<{ step: string; object: Json }> = [];

  namespaceExists(name: string): boolean {
    return this.objects.has(`Namespace//${name}`);
  }

  find(kind: string, namespace: string, selector?: string): Json[] {
    return [...this.objects.values()].filter(
      (o) => o.kind === kind && o.metadata?.namespace === namespace && selects(selector, o.metadata?.labels),
    );
  }
}

/** Why the pods of a workload could not run yet: what they read that is missing, and egress to PostgreSQL. */
function podProblems(cluster: ModelCluster, workload: Json): string[] {
  const problems: string[] = [];
  const namespace = workload.metadata.namespace;
  const pod = workload.spec.template.spec;
  const has = (kind: string, name: string) => cluster.objects.has(`${kind}/${namespace}/${name}`);
  for (const container of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) {
    for (const source of container.envFrom ?? []) {
      if (source.configMapRef && !has('ConfigMap', source.configMapRef.name))
        problems.push(`reads ConfigMap ${source.configMapRef.name}, which does not exist`);
      if (source.secretRef && !source.secretRef.optional && !has('Secret', source.secretRef.name))
        problems.push(`reads Secret ${source.secretRef.name}, which does not exist`);
    }
    for (const entry of container.env ?? []) {
      const { configMapKeyRef, secretKeyRef } = entry.valueFrom ?? {};
      if (configMapKeyRef && !configMapKeyRef.optional && !has('ConfigMap', configMapKeyRef.name))
        problems.push(`reads ConfigMap ${configMapKeyRef.name}, which does not exist`);
      if (secretKeyRef && !secretKeyRef.optional) {
        const secret = cluster.objects.get(`Secret/${namespace}/${secretKeyRef.name}`);
        if (!secret || !secret.data?.[secretKeyRef.key])
          problems.push(`reads key ${secretKeyRef.key} of Secret ${secretKeyRef.name}, which does not exist`);
      }
    }
  }
  for (const init of pod.initContainers ?? []) {
    const command: string[] = init.command ?? [];
    const app = /\/apps\/([a-z-]+)\/src\/database\/migrate\.js$/.exec(
      command.find((c) => c.endsWith('migrate.js')) ?? '',
    )?.[1];
    if (!app || !command.includes('wait')) continue;
    const migrated = [...cluster.completed].some((key) => {
      const job = cluster.objects.get(key);
      return (
        job?.metadata?.labels?.['app.kubernetes.io/name'] === app &&
        job.metadata.labels['app.kubernetes.io/component'] === 'migration'
      );
    });
    if (!migrated) problems.push(`its ${init.name} waits for ${app}'s migrations, which no completed Job applied`);
  }
  for (const volume of pod.volumes ?? []) {
    if (volume.configMap && !has('ConfigMap', volume.configMap.name))
      problems.push(`mounts ConfigMap ${volume.configMap.name}, which does not exist`);
  }
  const labels = workload.spec.template.metadata?.labels ?? {};
  const egress = cluster
    .find('NetworkPolicy', namespace)
    .filter((p) => Object.keys(p.spec?.podSelector ?? {}).length > 0 && matches(p.spec.podSelector, labels))
    .flatMap((p) => p.spec.egress ?? []);
  const postgres = egress.some((rule: Json) => (rule.ports ?? []).some((p: Json) => [5432, '5432'].includes(p.port)));
  if (!postgres) problems.push('no NetworkPolicy lets its pods reach PostgreSQL (the namespace denies all by default)');
  return problems;
}

function matches(selector: Json, labels: Record<string, string>): boolean {
  const byLabel = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  const byExpression = (selector.matchExpressions ?? []).every((e: Json) =>
    e.operator === 'In' ? e.values.includes(labels[e.key]) : !e.values.includes(labels[e.key]),
  );
  return byLabel && byExpression;
}

/** A Job's pod template, as the API server compares it when the Job is applied again. */
const templateOf = (job: Json) => JSON.stringify(job.spec?.template);

/**
 * Runs the steps of one shell block on the model cluster. `overrides` replaces the values the block assigns
 * (a pipeline's parameters); returns the problems, each with the step that met it.
 */
export function runSteps(
  block: string,
  cluster: ModelCluster,
  context: StepsContext,
  overrides: Record<string, string> = {},
): string[] {
  const problems: string[] = [];
  const vars: Record<string, string> = {};
  const lines = block.replace(/\\\n\s*/g, ' ').split('\n');
  for (const raw of lines) {
    const line = raw.trim();
    if (!line) continue;
    const fail = (problem: string) => problems.push(`${line}: ${problem}`);
    if (line.startsWith('#')) {
      if (/create the Secrets/i.test(line)) {
        const namespace = vars.NAMESPACE;
        if (!cluster.namespaceExists(namespace)) fail(`namespace ${namespace} does not exist yet`);
        for (const [name, keys] of context.secrets) {
          const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, data: {} as Json };
          for (const key of keys) secret.data[key] = 'set';
          cluster.objects.set(keyOf(secret), secret);
        }
      }
      continue;
    }
    const assignments = [...line.matchAll(/(?:^|\s)([A-Z_][A-Z0-9_]*)=(\S+)/g)];
    if (assignments.length > 0 && /^[A-Z_]/.test(line)) {
      for (const [, name, value] of assignments) vars[name] = overrides[name] ?? words(value, vars)[0];
      continue;
    }
    const [producer, consumer] = line.split(/\s\|\s/).map((part) => words(part, vars));
    let piped: Json[] | undefined;
    let args = producer;
    if (consumer) {
      if (producer[0] !== 'kubectl' || producer[1] !== 'kustomize') {
        fail('only `kubectl kustomize <dir> | kubectl …` pipes are understood');
        continue;
      }
      piped = context.render(producer[2]);
      args = consumer;
    }
    if (args[0] !== 'kubectl') {
      fail(`not a kubectl command`);
      continue;
    }
    const command = parseKubectl(args);
    const [verb, what] = command.verb;
    if (verb === 'apply' && command.kustomization) {
      const rendered = context
        .render(command.kustomization)
        .filter((o) => selects(command.selector, o.metadata?.labels));
      if (rendered.length === 0) fail('applies nothing');
      for (const object of rendered) {
        const namespace = object.kind === 'Namespace' ? undefined : (object.metadata?.namespace ?? command.namespace);
        if (object.kind !== 'Namespace') object.metadata = { ...object.metadata, namespace: namespace ?? 'default' };
        if (
          namespace &&
          !cluster.namespaceExists(namespace) &&
          !rendered.some((o) => o.kind === 'Namespace' && o.metadata.name === namespace)
        )
          fail(`${object.kind}/${object.metadata.name}: namespace ${namespace} does not exist`);
        const key = keyOf(object);
        const previous = cluster.objects.get(key);
        if (object.kind === 'Job' && previous && templateOf(previous) !== templateOf(object)) {
          fail(
            `Job/${object.metadata.name}: field is immutable (the previous Job is still there with another pod template)`,
          );
          continue;
        }
        if (object.kind === 'Job' && previous) continue;
        cluster.objects.set(key, object);
        cluster.applied.push({ step: line, object });
      }
    } else if (verb === 'delete' && piped) {
      for (const object of piped.filter((o) => selects(command.selector, o.metadata?.labels))) {
        const key = keyOf(object, command.namespace);
        cluster.objects.delete(key);
        cluster.completed.delete(key);
      }
    } else if (verb === 'wait') {
      const namespace = command.namespace ?? 'default';
      const named = command.targets.filter((target) => target.includes('/'));
      const jobs = named.length
        ? named.map((target) => {
            const job = cluster.objects.get(`Job/${namespace}/${target.replace(/^job\//, '')}`);
            if (!job) fail(`${target} does not exist in ${namespace}`);
            return job;
          })
        : cluster.find('Job', namespace, command.selector);
      if (jobs.length === 0) fail('no matching resources found');
      for (const job of jobs.filter((j): j is Json => j !== undefined)) {
        const blocked = podProblems(cluster, job);
        if (blocked.length > 0) fail(`Job/${job.metadata.name} never completes: ${blocked.join('; ')}`);
        else cluster.completed.add(keyOf(job));
      }
    } else if (verb === 'rollout' && what === 'status') {
      const namespace = command.namespace ?? 'default';
      const deployments = cluster
        .find('Deployment', namespace, command.selector)
        .filter((d) => command.targets.every((t) => t === 'deployment' || t === `deployment/${d.metadata.name}`));
      if (deployments.length === 0) fail('no matching resources found');
      for (const deployment of deployments) {
        const blocked = podProblems(cluster, deployment);
        if (blocked.length > 0)
          fail(`Deployment/${deployment.metadata.name} never becomes ready: ${blocked.join('; ')}`);
      }
    } else {
      fail(`kubectl ${command.verb.join(' ')} is not a step this check knows`);
    }
  }
  return problems;
}
