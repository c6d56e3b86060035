/**
 * The PrometheusRule manifests under k8s/ as Prometheus rule files, for `promtool`, and the names
 * their expressions read. Used by scripts/prometheus-rules.spec.ts and by the metrics e2e test.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';

export const ROOT = resolve(__dirname, '..');
export const RULE_SERVICES = ['voucher-api', 'bot-api', 'bot-dispatcher'] as const;
export type RuleService = (typeof RULE_SERVICES)[number];

export interface Rule {
  record?: string;
  alert?: string;
  expr: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
export interface RuleGroups {
  groups: Array<{ name: string; rules: Rule[] }>;
}

/** The `spec` of a service's PrometheusRule: exactly what a Prometheus rule file holds. */
export function ruleGroupsOf(service: RuleService): RuleGroups {
  const manifest = parseYaml(readFileSync(join(ROOT, 'k8s', service, 'base', 'prometheusrule.yaml'), 'utf8'));
  if (manifest.kind !== 'PrometheusRule') throw new Error(`${service}: not a PrometheusRule`);
  return manifest.spec as RuleGroups;
}

export function rulesOf(service: RuleService): Rule[] {
  return ruleGroupsOf(service).groups.flatMap((group) => group.rules);
}

const PROMQL_WORDS = new Set([
  'and',
  'or',
  'unless',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'offset',
  'bool',
  'inf',
  'nan',
]);

/**
 * The series names an expression selects: identifiers that are neither functions, keywords, label
 * names (inside `{…}` or the lists of `by`/`on`/…) nor durations. Recording rules' names (with `:`) included.
 */
export function metricNamesIn(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\boffset\s+[0-9smhdwy]+/g, '');
  const names = new Set<string>();
  for (const match of stripped.matchAll(/(?<![A-Za-z0-9_:.])[A-Za-z_:][A-Za-z0-9_:]*(\s*\()?/g)) {
    const [token, call] = [match[0].replace(/\s*\($/, ''), match[1]];
    if (call || PROMQL_WORDS.has(token.toLowerCase())) continue;
    names.add(token);
  }
  return [...names];
}

/** promtool from `PROMTOOL` or the PATH (Debian's `prometheus` package ships it), or undefined. */
export function findPromtool(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.PROMTOOL) return existsSync(env.PROMTOOL) ? env.PROMTOOL : undefined;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, 'promtool'))) return join(dir, 'promtool');
  }
  return undefined;
}

export function runPromtool(promtool: string, args: string[], cwd: string): string {
  try {
    return execFileSync(promtool, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`promtool ${args.join(' ')} failed:\n${failure.stdout ?? ''}${failure.stderr ?? failure.message}`);
  }
}

/** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) anchors.add(anchorOf(heading[1]));
  }
  return anchors;
}
