import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ModelCluster, runSteps, selects, StepsContext, stepsUnder } from './deployment-steps';
import { documentedSecrets } from './kit-completeness';
import { kitWithTeamSettings, parseManifests, renderOverlay } from './lint-k8s';
import { copyKit, replaceInFile } from './lint-k8s.testing';

// Each case renders several overlays with kubectl: seconds apiece, more on a loaded box.
jest.setTimeout(120_000);

const root = resolve(__dirname, '..');
const guide = readFileSync(join(root, 'docs/deployment.md'), 'utf8');
const [install] = stepsUnder(guide, 'First installation');
const [release] = stepsUnder(guide, 'Releases');

describe('the installation and release steps of docs/deployment.md, run as a pipeline runs them', () => {
  let filled: string;
  let scratch: string;

  /** What the steps read: the kit of `kit` rendered with a team's settings, and the guide's Secrets. */
  const contextOf = (kit: string, secrets = documentedSecrets(guide)): StepsContext => ({
    render: (dir) => parseManifests(renderOverlay(join(kit, dir))),
    secrets,
  });

  beforeAll(() => {
    filled = kitWithTeamSettings(root);
    scratch = mkdtempSync(join(tmpdir(), 'deployment-steps-'));
  });

  afterAll(() => {
    rmSync(filled, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  });

  /** The filled kit with one file changed, as the next release's checkout would have it. */
  function nextRelease(name: string, file: string, from: RegExp, to: string): string {
    const copy = copyKit(filled, join(scratch, name));
    replaceInFile(join(copy, file), from, to);
    return copy;
  }

  it('finds one block of lines for each', () => {
    expect(install).toContain('kubectl apply -k "k8s/bootstrap/$ENV"');
    expect(release).toContain('kubectl apply -k "$OVERLAY"');
  });

  it.each([
    ['prod', 'k8s/overlays/prod', 'open-platform'],
    ['small', 'k8s/overlays/small-postgres-only', 'open-platform'],
    ['dev', 'k8s/overlays/dev', 'open-platform-dev'],
  ])(
    'installs %s from nothing and releases it twice, with a changed configuration between',
    (env, overlay, namespace) => {
      const cluster = new ModelCluster();
      const parameters = { ENV: env, OVERLAY: overlay, NAMESPACE: namespace };
      expect(runSteps(install, cluster, contextOf(filled), parameters)).toEqual([]);
      expect(runSteps(release, cluster, contextOf(filled), parameters)).toEqual([]);
      expect(
        cluster
          .find('Deployment', namespace)
          .map((d) => d.metadata.name)
          .sort(),
      ).toEqual(['bot-api', 'bot-dispatcher', 'voucher-api']);

      // The next release changes a setting of every ConfigMap and the image of every pod.
      const next = nextRelease(
        `${env}-next`,
        `k8s/settings/${env}/settings.env`,
        /^IMAGE_REPOSITORY=.*$/m,
        'IMAGE_REPOSITORY=mirror.platform.test/op',
      );
      const before = cluster.applied.length;
      expect(runSteps(release, cluster, contextOf(next), parameters)).toEqual([]);
      const released = cluster.applied.slice(before).map(({ object }) => object);
      expect(released.filter((o) => o.kind === 'Job').map((o) => o.spec.template.spec.containers[0].image)).toEqual(
        expect.arrayContaining([expect.stringMatching(/^mirror\.platform\.test\/op\/voucher-api:/)]),
      );
      // No release applies the bootstrap or needs the administrator's Secret.
      for (const { object } of cluster.applied.slice(before)) {
        expect(object.metadata.labels?.['app.kubernetes.io/component']).not.toBe('database-bootstrap');
        expect(JSON.stringify(object)).not.toContain('database-admin');
      }
    },
  );

  it('installs and releases one service alone, bootstrapping its database only', () => {
    const cluster = new ModelCluster();
    const alone = install.replace(
      'kubectl apply -k "k8s/bootstrap/$ENV"',
      `kubectl apply -k "k8s/bootstrap/$ENV" -l 'app.kubernetes.io/name notin (bot-api)'`,
    );
    const parameters = { ENV: 'prod', OVERLAY: 'k8s/voucher-api/overlays/prod', NAMESPACE: 'open-platform' };
    expect(runSteps(alone, cluster, contextOf(filled), parameters)).toEqual([]);
    expect(runSteps(release, cluster, contextOf(filled), parameters)).toEqual([]);
    expect(
      cluster
        .find('Job', 'open-platform')
        .map((j) => j.metadata.name)
        .sort(),
    ).toEqual(['voucher-db-bootstrap', 'voucher-migrate']);
  });

  it('fails a release that applies its Jobs over the previous ones (defect: apply -k failed on the immutable Job)', () => {
    const cluster = new ModelCluster();
    const parameters = { ENV: 'prod', OVERLAY: 'k8s/overlays/prod', NAMESPACE: 'open-platform' };
    runSteps(install, cluster, contextOf(filled), parameters);
    runSteps(release, cluster, contextOf(filled), parameters);
    const withoutDelete = release
      .split('\n')
      .filter((line) => !line.includes('kubectl delete'))
      .join('\n');
    const next = nextRelease(
      'immutable',
      'k8s/voucher-api/env/prod/kustomization.yaml',
      /newTag: "[^"]+"/,
      'newTag: "9.9.9"',
    );
    expect(runSteps(withoutDelete, cluster, contextOf(next), parameters)).toEqual([
      expect.stringMatching(/Job\/voucher-migrate: field is immutable/),
      expect.stringMatching(/Job\/voucher-migrate: field is immutable/),
    ]);
  });

  it('fails an installation that skips the namespace, a Secret or the bootstrap', () => {
    const parameters = { ENV: 'prod', OVERLAY: 'k8s/overlays/prod', NAMESPACE: 'open-platform' };
    const noNamespace = install.replace(/^kubectl apply -k "k8s\/namespaces\/\$ENV"$/m, '');
    expect(runSteps(noNamespace, new ModelCluster(), contextOf(filled), parameters)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/create the Secrets.*: namespace open-platform does not exist yet/),
      ]),
    );

    const secrets = documentedSecrets(guide);
    secrets.delete('database-admin');
    expect(runSteps(install, new ModelCluster(), contextOf(filled, secrets), parameters)).toEqual([
      expect.stringMatching(
        /Job\/(voucher|bot)-db-bootstrap never completes: reads key DB_ADMIN_USER of Secret database-admin, which does not exist/,
      ),
      expect.stringMatching(
        /Job\/(voucher|bot)-db-bootstrap never completes: reads key DB_ADMIN_USER of Secret database-admin/,
      ),
    ]);

    const cluster = new ModelCluster();
    runSteps(install.replace(/^kubectl.*bootstrap.*$/gm, ''), cluster, contextOf(filled), parameters);
    const migrationsFirst = release.replace(
      /'app\.kubernetes\.io\/component in \(config,database-access,migration\)'/,
      'app.kubernetes.io/component=migration',
    );
    expect(runSteps(migrationsFirst, cluster, contextOf(filled), parameters)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /Job\/voucher-migrate never completes: reads ConfigMap voucher-api-config-\w+, which does not exist; no NetworkPolicy lets its pods reach PostgreSQL/,
        ),
      ]),
    );
  });

  it('reads label selectors as kubectl does', () => {
    const labels = { 'app.kubernetes.io/component': 'migration', 'app.kubernetes.io/name': 'bot-api' };
    expect(selects('app.kubernetes.io/component in (config,migration)', labels)).toBe(true);
    expect(selects('app.kubernetes.io/component in (config,database-access)', labels)).toBe(false);
    expect(selects('app.kubernetes.io/component=migration,app.kubernetes.io/name=bot-api', labels)).toBe(true);
    expect(selects('app.kubernetes.io/name!=bot-api', labels)).toBe(false);
    expect(selects('app.kubernetes.io/component notin (migration)', labels)).toBe(false);
  });
});
