import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { RATE_LIMIT_POOL_SIZE } from '@app/rate-limits';
import { MAX_FILE_SIZE } from '../apps/bot-api/src/files/file-types';
import { kitWithTeamSettings, overlayProblems, parseManifests, renderOverlay } from './lint-k8s';
import { copyKit, replaceInFile } from './lint-k8s.testing';
import {
  collectorEgressProblems,
  connectionBudget,
  edgeProblems,
  memoryFloorProblems,
  placeholderProblems,
  POSTGRES_ONLY_POOLS,
  releasePinProblems,
  publicRoutes,
  runbookProblems,
  sharedObjectProblems,
} from './lint-k8s-rules';

// Each case renders several overlays with kubectl: seconds apiece, more on a loaded box.
jest.setTimeout(120_000);

const root = resolve(__dirname, '..');

describe('the rules a rendered overlay must keep', () => {
  let filled: string;
  let scratch: string;
  const render = (kit: string, overlay: string) => parseManifests(renderOverlay(join(kit, 'k8s', overlay)));

  /** A copy of the filled kit to change one thing in. */
  const copyOfKit = (name: string) => copyKit(filled, join(scratch, name));
  const edit = replaceInFile;

  beforeAll(() => {
    filled = kitWithTeamSettings(root);
    scratch = mkdtempSync(join(tmpdir(), 'kit-rules-'));
  });

  afterAll(() => {
    rmSync(filled, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  });

  describe('the edge', () => {
    const routes = publicRoutes(root);

    it('reads every route of both OpenAPI documents, the Telegram face and the uploads among them', () => {
      const upload = routes.filter((r) => r.upload).map((r) => `${r.method} ${r.path}`);
      expect(upload).toEqual(
        expect.arrayContaining([
          'post /bot{token}/{method}',
          'post /telegram/bot{token}/{method}',
          'put /api/v1/bots/files/storage/{blob}',
        ]),
      );
      expect(routes.filter((r) => r.internal).map((r) => r.path)).toEqual(['/api/v1/bots/internal/files/{fileId}']);
      expect(routes.some((r) => r.path === '/file/bot{token}/{path}')).toBe(true);
      expect(routes.some((r) => r.path === '/.well-known/jwks.json')).toBe(true);
      expect(routes.some((r) => r.path.startsWith('/health'))).toBe(false);
    });

    it.each(['overlays/prod', 'overlays/dev', 'overlays/small-postgres-only'])(
      'routes every public path the docs promise to its app in %s, with room for 50 MB uploads and small bodies elsewhere',
      (overlay) => {
        expect(edgeProblems(render(filled, overlay), routes, MAX_FILE_SIZE)).toEqual([]);
      },
    );

    it('fails the Ingress that routed three prefixes with a 2 MB body limit (defect: the Telegram root and uploads were refused)', () => {
      const objects = render(filled, 'overlays/prod').filter(
        (o) => !(o.kind === 'Ingress' && o.metadata.name === 'open-platform-uploads'),
      );
      const ingress = objects.find((o) => o.kind === 'Ingress')!;
      ingress.spec.rules[0].http.paths = ingress.spec.rules[0].http.paths
        .filter((p: { path: string }) => !['/.well-known/jwks.json', '/file/bot'].includes(p.path))
        .concat([
          { path: '/telegram', pathType: 'Prefix', backend: { service: { name: 'bot-api', port: { name: 'http' } } } },
        ]);
      const problems = edgeProblems(objects, routes, MAX_FILE_SIZE);
      expect(problems).toEqual(
        expect.arrayContaining([
          'POST /bot{token}/{method} (/botsbot_3f9c2a7d41b04e6f8a1c/sendDocument): no Ingress routes it (the ingress answers 404)',
          'GET /file/bot{token}/{path} (/file/botsbot_3f9c2a7d41b04e6f8a1c/documents/report.pdf): no Ingress routes it (the ingress answers 404)',
          'GET /.well-known/jwks.json (/.well-known/jwks.json): no Ingress routes it (the ingress answers 404)',
          `POST /telegram/bot{token}/{method} (/telegram/botsbot_3f9c2a7d41b04e6f8a1c/sendDocument): Ingress/open-platform lets 2097152 bytes through, below the ${MAX_FILE_SIZE} bytes of a file upload`,
          `PUT /api/v1/bots/files/storage/{blob} (/api/v1/bots/files/storage/a1b2c3): Ingress/open-platform lets 2097152 bytes through, below the ${MAX_FILE_SIZE} bytes of a file upload`,
        ]),
      );
    });

    it('fails when bot-api internal routes become reachable, or a JSON route gets the upload limit', () => {
      const objects = render(filled, 'overlays/prod');
      const small = objects.find((o) => o.kind === 'Ingress' && o.metadata.name === 'open-platform')!;
      small.spec.rules[0].http.paths = small.spec.rules[0].http.paths.filter(
        (p: { path: string }) => p.path !== '/api/v1/bots/internal',
      );
      small.metadata.annotations['nginx.ingress.kubernetes.io/proxy-body-size'] = '0';
      const problems = edgeProblems(objects, routes, MAX_FILE_SIZE);
      expect(problems).toContain(
        'GET /api/v1/bots/internal/files/{fileId} (/api/v1/bots/internal/files/a1b2c3): internal route of bot-api reachable through Ingress/open-platform',
      );
      expect(problems).toContain(
        'POST /api/v1/open-platform/vouchers/redeem (/api/v1/open-platform/vouchers/redeem): Ingress/open-platform lets upload-sized bodies through to a route that takes none',
      );
    });
  });

  describe('the connection budget', () => {
    it('counts the pools of each overlay at its autoscalers’ maximum plus the rollout surge, within the stated budget', () => {
      const prod = connectionBudget(render(filled, 'overlays/prod'));
      expect(prod.problems).toEqual([]);
      expect(prod.budget).toMatchObject({ budget: 180 });
      expect(prod.budget!.used).toBeLessThanOrEqual(180);
      const small = connectionBudget(render(filled, 'overlays/small-postgres-only'));
      expect(small.problems).toEqual([]);
      // Each PostgreSQL-only pod adds its rate-limit, wake-up and queue connections to DB_POOL_SIZE.
      expect(small.budget!.lines).toContain('voucher-api: 2 pods (maxReplicas 1 + surge) × 33 = 66');
    });

    it('fails pools of 20 at 10 replicas against a server of 100 connections (defect: 520 at the maximums)', () => {
      const copy = copyOfKit('budget');
      for (const service of ['voucher-api', 'bot-api', 'bot-dispatcher']) {
        const component = join(copy, `k8s/${service}/env/prod/kustomization.yaml`);
        edit(component, /DB_POOL_SIZE=\d+/, 'DB_POOL_SIZE=20');
        edit(component, /path: \/spec\/maxReplicas\n {8}value: \d+/, 'path: /spec/maxReplicas\n        value: 10');
      }
      edit(
        join(copy, 'k8s/settings/prod/settings.env'),
        /^POSTGRES_MAX_CONNECTIONS=.*$/m,
        'POSTGRES_MAX_CONNECTIONS=100',
      );
      const { problems } = connectionBudget(render(copy, 'overlays/prod'));
      expect(problems).toEqual([
        'the pools may open 660 PostgreSQL connections, over the budget of 80 (max_connections 100 - reserved 20): ' +
          'bot-api: 11 pods (maxReplicas 10 + surge) × 20 = 220; bot-dispatcher: 11 pods (maxReplicas 10 + surge) × 20 = 220; ' +
          'voucher-api: 11 pods (maxReplicas 10 + surge) × 20 = 220',
      ]);
    });

    it('models the PostgreSQL-only pools with the constants of the code', () => {
      const source = (file: string) => readFileSync(join(root, file), 'utf8');
      expect(POSTGRES_ONLY_POOLS.rateLimits).toBe(RATE_LIMIT_POOL_SIZE);
      expect(source('libs/coordination/src/queue-connection.ts')).toContain(
        `const QUEUE_POOL_MAX = ${POSTGRES_ONLY_POOLS.queuePool};`,
      );
      const bus = source('libs/coordination/src/channels/postgres-channel-bus.ts');
      expect(/-notify`, max: (\d+) \}/.exec(bus)?.[1]).toBe(String(POSTGRES_ONLY_POOLS.channelBus - 1));
    });
  });

  describe('egress to the tracing collector', () => {
    it('lets each Deployment reach the collector its settings name (dev exports to one)', () => {
      const objects = render(filled, 'overlays/dev');
      expect(objects.filter((o) => o.kind === 'ConfigMap').map((o) => o.data.OTEL_EXPORTER_OTLP_ENDPOINT)).toContain(
        'http://otel-collector.observability.svc:4318',
      );
      expect(collectorEgressProblems(objects)).toEqual([]);
    });

    it('fails when the policies follow another port than the endpoint (defect: spans were dropped at the pod)', () => {
      const copy = copyOfKit('collector');
      edit(join(copy, 'k8s/settings/dev/settings.env'), /^OTLP_COLLECTOR_PORT=.*$/m, 'OTLP_COLLECTOR_PORT=4317');
      expect(collectorEgressProblems(render(copy, 'overlays/dev')).sort()).toEqual([
        'Deployment/bot-api: exports spans to http://otel-collector.observability.svc:4318, but no NetworkPolicy lets it reach namespace observability on port 4318',
        'Deployment/bot-dispatcher: exports spans to http://otel-collector.observability.svc:4318, but no NetworkPolicy lets it reach namespace observability on port 4318',
        'Deployment/voucher-api: exports spans to http://otel-collector.observability.svc:4318, but no NetworkPolicy lets it reach namespace observability on port 4318',
      ]);
    });
  });

  describe('what a team sets', () => {
    it('finds no placeholder in the prod overlays once the settings are filled', () => {
      for (const overlay of ['overlays/prod', 'voucher-api/overlays/prod', 'overlays/small-postgres-only'])
        expect(placeholderProblems(render(filled, overlay))).toEqual([]);
    });

    it('fails a value left at an example host (defect: pods became ready and answered 401 to every real token)', () => {
      const copy = copyOfKit('placeholders');
      const settings = join(copy, 'k8s/settings/prod/settings.env');
      edit(settings, /^PUBLIC_HOST=.*$/m, 'PUBLIC_HOST=api.example.com');
      edit(settings, /^ACCOUNT_JWT_ISSUER=.*$/m, 'ACCOUNT_JWT_ISSUER=https://accounts.example.internal');
      const problems = placeholderProblems(render(copy, 'overlays/prod'));
      expect(problems).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            /^ConfigMap\/voucher-api-config-\w+ \/data\/ACCOUNT_JWT_ISSUER: placeholder "https:\/\/accounts\.example\.internal" left/,
          ),
          expect.stringMatching(
            /^ConfigMap\/bot-api-config-\w+ \/data\/FILE_PUBLIC_BASE_URL: placeholder "https:\/\/api\.example\.com" left/,
          ),
          'Ingress/open-platform /spec/rules/0/host: placeholder "api.example.com" left (set it in k8s/settings/<env>/settings.env)',
        ]),
      );
      expect(overlayProblems('k8s/overlays/prod', render(copy, 'overlays/prod'))).toEqual(
        expect.arrayContaining(problems),
      );
    });

    it('pins every image of the prod and small overlays to a version its app has released', () => {
      for (const overlay of ['overlays/prod', 'bot-dispatcher/overlays/prod', 'overlays/small-postgres-only'])
        expect(releasePinProblems(render(filled, overlay), root)).toEqual([]);
    });

    it('pins each app to one version in every env Component of an environment (bot-dispatcher pins bot-api for its schema wait)', () => {
      for (const env of ['prod', 'dev']) {
        const pins = new Map<string, Set<string>>();
        for (const app of ['voucher-api', 'bot-api', 'bot-dispatcher']) {
          const component = parse(readFileSync(join(root, 'k8s', app, 'env', env, 'kustomization.yaml'), 'utf8'));
          for (const { name, newTag } of component.images ?? [])
            pins.set(name, (pins.get(name) ?? new Set()).add(newTag));
        }
        for (const [image, tags] of pins)
          expect({ env, image, tags: [...tags] }).toEqual({ env, image, tags: [expect.any(String)] });
      }
    });

    it('fails an image pinned to a version that was never released, or to a moving tag', () => {
      const copy = copyOfKit('pins');
      edit(join(copy, 'k8s/bot-api/env/prod/kustomization.yaml'), /newTag: "[^"]+"/, 'newTag: "9.9.9"');
      edit(join(copy, 'k8s/bot-dispatcher/env/prod/kustomization.yaml'), /newTag: "[^"]+"/, 'newTag: "9.9.9"');
      edit(join(copy, 'k8s/voucher-api/env/prod/kustomization.yaml'), /newTag: "[^"]+"/, 'newTag: latest');
      const problems = releasePinProblems(render(copy, 'overlays/prod'), root);
      expect(problems).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            /^Deployment\/bot-api container bot-api: image \S+bot-api:9\.9\.9 is not a released bot-api version/,
          ),
          expect.stringMatching(
            /^Deployment\/voucher-api container voucher-api: image \S+voucher-api:latest is not a released/,
          ),
        ]),
      );
      expect(overlayProblems('k8s/overlays/prod', render(copy, 'overlays/prod'))).toEqual(
        expect.arrayContaining(problems),
      );
    });

    it('links every alert to the team’s published guide, not to a path of this repository', () => {
      expect(runbookProblems(render(filled, 'overlays/prod'))).toEqual([]);
      const base = parseManifests(readFileSync(join(root, 'k8s/voucher-api/base/prometheusrule.yaml'), 'utf8'));
      expect(runbookProblems(base)[0]).toMatch(
        /^PrometheusRule\/voucher-api alert \w+: runbook_url docs\/operations\.md#[\w-]+ is not a link to a published guide$/,
      );
    });
  });

  describe('objects a service overlay must not hold', () => {
    it('renders no Namespace and no default-deny policy in any service overlay, so deleting one service keeps them', () => {
      for (const overlay of ['voucher-api/overlays/prod', 'bot-dispatcher/overlays/dev', 'overlays/prod'])
        expect(sharedObjectProblems(render(filled, overlay))).toEqual([]);
    });

    it('fails an overlay that takes the platform in again (defect: a per-service delete deleted the Namespace)', () => {
      const copy = copyOfKit('shared');
      edit(
        join(copy, 'k8s/voucher-api/overlays/prod/kustomization.yaml'),
        'resources:\n',
        'resources:\n  - ../../../platform\n',
      );
      expect(sharedObjectProblems(render(copy, 'voucher-api/overlays/prod'))).toEqual([
        'Namespace/open-platform: belongs to k8s/namespaces/<env>; `kubectl delete -k` of this overlay would delete it',
        'NetworkPolicy/default-deny: belongs to k8s/namespaces/<env>; `kubectl delete -k` of this overlay would delete it',
      ]);
    });

    it('keeps every container of the images at the memory floor, Jobs and init containers included', () => {
      const objects = render(filled, 'overlays/prod');
      expect(memoryFloorProblems(objects)).toEqual([]);
      const migration = objects.find((o) => o.kind === 'Job' && o.metadata.name === 'voucher-migrate')!;
      migration.spec.template.spec.containers[0].resources.limits.memory = '256Mi';
      const dispatcher = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'bot-dispatcher')!;
      dispatcher.spec.template.spec.initContainers[0].resources.limits.memory = '192Mi';
      expect(memoryFloorProblems(objects)).toEqual([
        'Deployment/bot-dispatcher container wait-for-bot-schema: memory limit 192Mi is below the floor of 384Mi',
        'Job/voucher-migrate container migrate: memory limit 256Mi is below the floor of 384Mi',
      ]);
    });
  });
});
