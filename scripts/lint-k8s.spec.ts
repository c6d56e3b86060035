import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { lintDockerfile, lintKubernetes, policyProblems } from './lint-k8s';

const root = resolve(__dirname, '..');

describe('lint:k8s', () => {
  let scratch: string;

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'lint-k8s-'));
    // The per-service overlays take the namespace and the bootstrap SQL from k8s/platform, next to them.
    cpSync(join(root, 'k8s/platform'), join(scratch, 'platform'), { recursive: true });
  });

  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('passes the checked-in voucher-api dev overlay', () => {
    const result = lintKubernetes([join(root, 'k8s/voucher-api/overlays/dev')], root);
    expect(result.problems).toEqual([]);
    expect(result.checked).toEqual(['k8s/voucher-api/overlays/dev (13 objects)']);
  });

  it('fails on a deliberately broken copy: misspelt field, bad quantity, writable root filesystem', () => {
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
  });

  it('reports an overlay that does not render instead of skipping it', () => {
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
