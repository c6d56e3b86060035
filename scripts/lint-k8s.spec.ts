import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  kitWithTeamSettings,
  kubectlCommand,
  lintDockerfile,
  lintKubernetes,
  parseManifests,
  policyProblems,
  renderOverlay,
} from './lint-k8s';

const root = resolve(__dirname, '..');
/**
 * Rendering the overlays needs kubectl (KUBECTL or the PATH); without it those tests are skipped on a developer's
 * machine, never in CI (CI=true), where .ci/run installs one.
 */
const kubectl = spawnSync(kubectlCommand(), ['version', '--client'], { stdio: 'ignore' }).status === 0;
if (!kubectl && process.env.CI) throw new Error('kubectl not found (set KUBECTL or put it on the PATH)');
const withKubectl = kubectl ? it : it.skip;

describe('lint:k8s', () => {
  let scratch: string;
  /** The kit with a team's settings filled in (the prod and small settings ship without them). */
  let filled: string;

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'lint-k8s-'));
    // The per-service overlays take their settings from k8s/settings, next to them.
    cpSync(join(root, 'k8s/settings'), join(scratch, 'settings'), { recursive: true });
    filled = kubectl ? kitWithTeamSettings(root) : '';
  });

  afterAll(() => {
    rmSync(scratch, { recursive: true, force: true });
    if (filled) rmSync(filled, { recursive: true, force: true });
  });

  withKubectl('passes the checked-in voucher-api dev overlay (needs kubectl)', () => {
    const result = lintKubernetes([join(root, 'k8s/voucher-api/overlays/dev')], root);
    expect(result.problems).toEqual([]);
    expect(result.checked).toEqual(['k8s/voucher-api/overlays/dev (13 objects)']);
  });

  withKubectl(
    'fails on a deliberately broken copy: misspelt field, bad quantity, writable root filesystem (needs kubectl)',
    () => {
      const copy = join(scratch, 'voucher-api');
      cpSync(join(root, 'k8s/voucher-api'), copy, { recursive: true });
      const deployment = join(copy, 'base/deployment.yaml');
      const broken = readFileSync(deployment, 'utf8')
        .replace('          livenessProbe:', '          livenesProbe:')
        .replace('              memory: 192Mi', '              memory: plenty')
        .replace('readOnlyRootFilesystem: true', 'readOnlyRootFilesystem: false');
      writeFileSync(deployment, broken);

      const { problems } = lintKubernetes([join(copy, 'overlays/dev')], scratch);

      expect(problems).toEqual(
        expect.arrayContaining([
          'voucher-api/overlays/dev: Deployment/voucher-api: /spec/template/spec/containers/0/livenesProbe: unknown field',
          'voucher-api/overlays/dev: Deployment/voucher-api: /spec/template/spec/containers/0/resources/requests/memory must match format "quantity"',
          'voucher-api/overlays/dev: Deployment/voucher-api container voucher-api: readOnlyRootFilesystem must be true',
          'voucher-api/overlays/dev: Deployment/voucher-api container voucher-api: livenessProbe must GET /health/live',
        ]),
      );
    },
  );

  withKubectl(
    'passes the PostgreSQL-only small overlay, whose pods choose postgres and get no REDIS_URL (needs kubectl)',
    () => {
      const overlay = join(filled, 'k8s/overlays/small-postgres-only');
      expect(lintKubernetes([overlay], filled).problems).toEqual([]);
      const objects = parseManifests(renderOverlay(overlay));
      const configs = objects.filter(
        (o) => o.kind === 'ConfigMap' && /^(voucher-api|bot-api|bot-dispatcher)-config/.test(o.metadata.name),
      );
      expect(configs.map((c) => c.data.COORDINATION_BACKEND)).toEqual(['postgres', 'postgres', 'postgres']);
      const pods = objects.filter((o) => o.kind === 'Deployment' || o.kind === 'Job');
      expect(pods.filter((o) => o.kind === 'Deployment')).toHaveLength(3);
      const redisUrls = pods.flatMap((o) =>
        o.spec.template.spec.containers.flatMap((c: { env?: Array<{ name: string }> }) =>
          (c.env ?? []).filter((e) => e.name === 'REDIS_URL'),
        ),
      );
      expect(redisUrls).toEqual([]);
    },
  );

  withKubectl(
    'refuses a production overlay that makes no coordination choice, or chooses redis without REDIS_URL (needs kubectl)',
    () => {
      const copy = join(scratch, 'no-choice');
      cpSync(join(filled, 'k8s'), copy, { recursive: true });
      const component = join(copy, 'voucher-api/env/prod/kustomization.yaml');
      const chosen = readFileSync(component, 'utf8');
      writeFileSync(component, chosen.replace('      - COORDINATION_BACKEND=redis\n', ''));
      const overlay = join(copy, 'voucher-api/overlays/prod');
      expect(lintKubernetes([overlay], scratch).problems).toEqual([
        'no-choice/voucher-api/overlays/prod: Deployment/voucher-api container voucher-api: COORDINATION_BACKEND must be "redis" or "postgres" (production needs an explicit choice)',
      ]);

      const deployment = join(copy, 'voucher-api/base/deployment.yaml');
      writeFileSync(component, chosen);
      writeFileSync(deployment, readFileSync(deployment, 'utf8').replace(/ {12}- name: REDIS_URL\n(?: {14}.*\n)+/, ''));
      expect(lintKubernetes([overlay], scratch).problems).toEqual([
        'no-choice/voucher-api/overlays/prod: Deployment/voucher-api container voucher-api: COORDINATION_BACKEND=redis needs REDIS_URL (from the Secret)',
      ]);
    },
  );

  withKubectl(
    'composes the postgres-only component with a single-service overlay, overriding its redis choice (needs kubectl)',
    () => {
      const copy = join(scratch, 'composed');
      cpSync(join(filled, 'k8s'), copy, { recursive: true });
      const overlay = join(copy, 'voucher-api/overlays/prod/kustomization.yaml');
      const composed = readFileSync(overlay, 'utf8').replace(
        'components:\n  - ../../env/prod\n',
        'components:\n  - ../../env/prod\n  - ../../../components/postgres-only\n',
      );
      expect(composed).toContain('postgres-only');
      writeFileSync(overlay, composed);
      const objects = parseManifests(renderOverlay(join(copy, 'voucher-api/overlays/prod')));
      const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('voucher-api-config'));
      expect(config?.data.COORDINATION_BACKEND).toBe('postgres');
      const env = objects
        .filter((o) => o.kind === 'Deployment' || o.kind === 'Job')
        .flatMap((o) => o.spec.template.spec.containers[0].env.map((e: { name: string }) => e.name));
      expect(env).toContain('DB_PASSWORD');
      expect(env).not.toContain('REDIS_URL');
    },
  );

  withKubectl('reports an overlay that does not render instead of skipping it (needs kubectl)', () => {
    const copy = join(scratch, 'unrenderable');
    cpSync(join(root, 'k8s/bot-dispatcher'), copy, { recursive: true });
    writeFileSync(join(copy, 'base/kustomization.yaml'), 'resources:\n  - missing.yaml\n');
    const { problems } = lintKubernetes([join(copy, 'overlays/prod')], scratch);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^unrenderable\/overlays\/prod: kustomize failed: .*missing\.yaml/);
  });

  it('refuses a Secret with values in the rendered objects', () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'leak' }, data: { KEY: 'c2VjcmV0' } };
    expect(policyProblems([secret])).toEqual([
      'Secret/leak: Secret values never live in the manifests; reference the Secret instead',
    ]);
  });

  it('refuses spec.replicas on a Deployment that a HorizontalPodAutoscaler scales', () => {
    const labels = { app: 'x' };
    const deployment = {
      kind: 'Deployment',
      metadata: { name: 'x' },
      spec: {
        replicas: 3,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [] } },
      },
    };
    const hpa = {
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'x' },
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'x' } },
    };
    expect(policyProblems([deployment, hpa])).toContain(
      'Deployment/x: drop spec.replicas, the HorizontalPodAutoscaler owns it (apply would reset it)',
    );
  });

  it('passes the checked-in Dockerfiles and fails a copy that runs as root without a healthcheck', () => {
    for (const app of ['voucher-api', 'bot-api', 'bot-dispatcher']) {
      expect(lintDockerfile(join(root, `docker/${app}.Dockerfile`), root)).toEqual([]);
    }
    const copy = join(scratch, 'broken.Dockerfile');
    const original = readFileSync(join(root, 'docker/voucher-api.Dockerfile'), 'utf8');
    writeFileSync(
      copy,
      original
        .replace('USER 1000:1000', 'USER root')
        .replace(/HEALTHCHECK[^\n]*\\\n[^\n]*\n/, '')
        .replace('EXPOSE 3001', 'EXPOSE http'),
    );
    const problems = lintDockerfile(copy, scratch);
    expect(problems).toEqual(
      expect.arrayContaining([
        'broken.Dockerfile: the runtime stage must switch to a non-root USER',
        'broken.Dockerfile: the runtime stage needs a HEALTHCHECK',
      ]),
    );
    expect(problems.some((problem) => /^broken\.Dockerfile:\d+: Invalid containerPort: http$/.test(problem))).toBe(
      true,
    );
  });
});
