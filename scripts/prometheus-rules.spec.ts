import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify } from 'yaml';
import {
  anchorsOf,
  findPromtool,
  metricNamesIn,
  ROOT,
  RULE_SERVICES,
  ruleGroupsOf,
  rulesOf,
  runPromtool,
} from './prometheus-rules';

const promtool = findPromtool();
// npm test needs nothing installed: without promtool the promtool cases say so and pass over; CI
// (CI=true) installs it and must run them.
if (!promtool && process.env.CI) throw new Error('promtool not found (set PROMTOOL or put it on the PATH)');
if (!promtool) {
  process.stderr.write(
    'prometheus-rules.spec: promtool not found (PROMTOOL or PATH; Debian: apt-get install prometheus), ' +
      'so `promtool test rules` is skipped; the static checks still run\n',
  );
}
const withPromtool = promtool ? it : it.skip;

interface PromtoolTests {
  rule_files: string[];
  tests: Array<{ alert_rule_test?: Array<{ alertname: string; exp_alerts: unknown[] }> }>;
}
const testsOf = (service: string): PromtoolTests =>
  parseYaml(readFileSync(join(ROOT, 'scripts/prometheus-rules', `${service}.test.yaml`), 'utf8'));

describe.each(RULE_SERVICES)('Prometheus rules of %s', (service) => {
  const alerts = rulesOf(service).filter((rule) => rule.alert);

  withPromtool('are valid rules whose alerts fire and stay silent as the unit tests feed them', () => {
    const dir = mkdtempSync(join(tmpdir(), `rules-${service}-`));
    try {
      writeFileSync(join(dir, `${service}.rules.yaml`), stringify(ruleGroupsOf(service)));
      copyFileSync(join(ROOT, 'scripts/prometheus-rules', `${service}.test.yaml`), join(dir, 'test.yaml'));
      runPromtool(promtool!, ['check', 'rules', `${service}.rules.yaml`], dir);
      expect(runPromtool(promtool!, ['test', 'rules', 'test.yaml'], dir)).toContain('SUCCESS');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('has a firing and a silent unit test for every alert', () => {
    const cases = testsOf(service).tests.flatMap((t) => t.alert_rule_test ?? []);
    expect(testsOf(service).rule_files).toEqual([`${service}.rules.yaml`]);
    for (const { alert } of alerts) {
      const own = cases.filter((c) => c.alertname === alert);
      expect({ alert, fires: own.some((c) => c.exp_alerts.length > 0) }).toEqual({ alert, fires: true });
      expect({ alert, silent: own.some((c) => c.exp_alerts.length === 0) }).toEqual({ alert, silent: true });
    }
  });

  it('gives every alert a severity and a runbook link to a section of docs/operations.md that exists', () => {
    const anchors = anchorsOf(readFileSync(join(ROOT, 'docs/operations.md'), 'utf8'));
    for (const { alert, labels, annotations } of alerts) {
      expect({ alert, severity: labels?.severity }).toEqual({
        alert,
        severity: expect.stringMatching(/^(page|ticket)$/),
      });
      const [file, anchor] = (annotations?.runbook_url ?? '').split('#');
      expect({ alert, file, anchor: anchors.has(anchor) }).toEqual({ alert, file: 'docs/operations.md', anchor: true });
    }
  });

  it('reads only recorded series that a rule of the file records', () => {
    const recorded = new Set(rulesOf(service).flatMap((rule) => (rule.record ? [rule.record] : [])));
    const read = rulesOf(service)
      .flatMap((rule) => metricNamesIn(rule.expr))
      .filter((name) => name.includes(':'));
    expect(read.filter((name) => !recorded.has(name))).toEqual([]);
  });
});

describe('metric names of PromQL expressions', () => {
  it('are the selected series, not functions, keywords, labels or durations', () => {
    expect(
      metricNamesIn(
        'sum by (job, le) (rate(http_request_duration_seconds_bucket{job="x",route=~"a|b"}[5m])) > 1 and on () max(up offset 1h) == 0',
      ).sort(),
    ).toEqual(['http_request_duration_seconds_bucket', 'up']);
  });
});
