import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { checkKit, checkOverlay, documentedSecrets, environmentProblems } from './kit-completeness';
import { kitWithTeamSettings, parseManifests, renderOverlay } from './lint-k8s';
import { copyKit, replaceInFile } from './lint-k8s.testing';

// Each case renders several overlays with kubectl: seconds apiece, more on a loaded box.
jest.setTimeout(120_000);

const root = resolve(__dirname, '..');
const docs = readFileSync(join(root, 'docs/deployment.md'), 'utf8');

describe('the Kubernetes kit is complete', () => {
  let scratch: string;

  /** The kit with a team's settings filled in, as it renders once a team has set them. */
  let filled: string;
  const render = (entry: string) => parseManifests(renderOverlay(join(filled, 'k8s', entry)));

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'kit-'));
    filled = kitWithTeamSettings(root);
  });

  afterAll(() => {
    rmSync(scratch, { recursive: true, force: true });
    rmSync(filled, { recursive: true, force: true });
  });

  /** A copy of the kit to break one thing in. */
  const copyOfKit = (name: string) => copyKit(root, join(scratch, name));
  const edit = replaceInFile;

  it('gives every container of every overlay what its configuration requires in production, from documented Secrets only', () => {
    const { overlays, problems } = checkKit(root);
    expect(problems).toEqual([]);
    expect(overlays).toEqual(
      expect.arrayContaining([
        'k8s/overlays/dev',
        'k8s/overlays/prod',
        'k8s/overlays/small-postgres-only',
        'k8s/voucher-api/overlays/prod',
        'k8s/bot-api/overlays/prod-revert',
      ]),
    );
    expect(overlays.length).toBeGreaterThanOrEqual(11);
  });

  it('reads the secret commands of the deployment guide', () => {
    const secrets = documentedSecrets(docs);
    expect([...secrets.keys()].sort()).toEqual([
      'bot-api-secrets',
      'bot-dispatcher-secrets',
      'database-admin',
      'tracing',
      'voucher-api-secrets',
    ]);
    expect([...secrets.get('voucher-api-secrets')!]).toEqual(
      expect.arrayContaining(['DB_PASSWORD', 'DB_MIGRATION_PASSWORD', 'CREDENTIAL_KEY', 'INTERNAL_API_TOKEN']),
    );
    expect([...secrets.get('bot-api-secrets')!]).toEqual(
      expect.arrayContaining(['FILE_S3_ACCESS_KEY_ID', 'FILE_S3_SECRET_ACCESS_KEY']),
    );
  });

  it('fails when a setting production requires is removed from a base ConfigMap', () => {
    const copy = copyOfKit('no-issuer');
    edit(join(copy, 'k8s/voucher-api/base/config.env'), /^ACCOUNT_JWT_AUDIENCE=.*\n/m, '');
    const { problems } = checkKit(copy, docs);
    expect(problems).toContain(
      'k8s/voucher-api/overlays/prod: Deployment/voucher-api container voucher-api: ACCOUNT_JWT_AUDIENCE: required when NODE_ENV=production',
    );
    expect(problems).toContain(
      'k8s/overlays/dev: Deployment/voucher-api container voucher-api: ACCOUNT_JWT_AUDIENCE: required when NODE_ENV=production',
    );
  });

  it('fails when a Deployment stops reading a key of its Secret: the development default is refused', () => {
    const copy = copyOfKit('no-credential-key');
    edit(join(copy, 'k8s/voucher-api/base/deployment.yaml'), /            - name: CREDENTIAL_KEY\n( {14,}.*\n){4}/, '');
    const { problems } = checkKit(copy, docs);
    expect(problems).toContain(
      'k8s/voucher-api/overlays/dev: Deployment/voucher-api container voucher-api: CREDENTIAL_KEY: the development default is refused when NODE_ENV=production',
    );
    expect(problems).toContain(
      'docs/deployment.md: key CREDENTIAL_KEY of Secret voucher-api-secrets is created but no manifest reads it',
    );
  });

  it('does not render a prod overlay while a value only the team knows is missing from its settings, and names it', () => {
    expect(() => renderOverlay(join(root, 'k8s/overlays/prod'))).toThrow(
      /fieldPath `data\.(IMAGE_REPOSITORY|PUBLIC_HOST|ACCOUNT_JWT_ISSUER|POSTGRES_HOST|POSTGRES_NAMESPACE|REDIS_NAMESPACE|FILE_S3_BUCKET|FILE_S3_REGION|RUNBOOK_URL)` is missing for replacement source .*open-platform-settings/,
    );
    const copy = copyOfKit('one-setting-missing');
    const settings = join(copy, 'k8s/settings/prod/settings.env');
    const team = readFileSync(join(root, 'scripts/lint-k8s.settings.env'), 'utf8');
    writeFileSync(settings, readFileSync(settings, 'utf8') + team.replace(/^POSTGRES_HOST=.*\n/m, ''));
    expect(() => renderOverlay(join(copy, 'k8s/bot-dispatcher/overlays/prod'))).toThrow(
      'fieldPath `data.POSTGRES_HOST` is missing for replacement source',
    );
    writeFileSync(settings, readFileSync(settings, 'utf8') + 'POSTGRES_HOST=postgres.databases.svc\n');
    const config = parseManifests(renderOverlay(join(copy, 'k8s/bot-dispatcher/overlays/prod'))).find(
      (o) => o.kind === 'ConfigMap',
    );
    expect(config?.data.DB_HOST).toBe('postgres.databases.svc');
  });

  it('fails when a container needs a Secret key the docs do not tell the operator to create', () => {
    const withoutKey = docs.replace(' --from-literal=WEBHOOK_SECRET_KEY="$WEBHOOK_SECRET_KEY"', '');
    expect(withoutKey).not.toBe(docs);
    const { problems } = checkKit(root, withoutKey);
    expect(problems).toContain(
      'k8s/bot-api/overlays/prod: Deployment/bot-api container bot-api: needs key WEBHOOK_SECRET_KEY of Secret bot-api-secrets, which the docs do not tell to create',
    );
  });

  it('fails when the docs tell the operator to create a key that nothing reads', () => {
    const withExtra = docs.replace(
      '--from-literal=CREDENTIAL_KEY="$CREDENTIAL_KEY"',
      '--from-literal=CREDENTIAL_KEY="$CREDENTIAL_KEY" --from-literal=OLD_KEY="$OLD_KEY"',
    );
    const { problems } = checkKit(root, withExtra);
    expect(problems).toEqual([
      'docs/deployment.md: key OLD_KEY of Secret voucher-api-secrets is created but no manifest reads it',
    ]);
  });

  it('fails when the bootstrap creates another role than the app or its migration Job connects as', () => {
    const overlay = render('bot-api/overlays/prod');
    const bootstrap = render('bootstrap/prod');
    const namespace = render('namespaces/prod');
    expect(environmentProblems(overlay, namespace, bootstrap)).toEqual([]);
    const migration = overlay.find((o) => o.kind === 'Job' && o.metadata.name === 'bot-migrate')!;
    migration.spec.template.spec.containers[0].env.find((e: { name: string }) => e.name === 'DB_USER').value =
      'postgres';
    expect(environmentProblems(overlay, namespace, bootstrap)).toEqual([
      'Job/bot-db-bootstrap: creates migrator bot_migrator, but the migration Job uses postgres',
    ]);
  });

  it('fails when the environment lacks the namespace, its default-deny policy or the bootstrap of a migrated database', () => {
    const overlay = render('voucher-api/overlays/prod');
    const bootstrap = render('bootstrap/prod').filter((o) => o.metadata.name !== 'voucher-db-bootstrap');
    const namespace = render('namespaces/prod').filter((o) => o.kind !== 'NetworkPolicy');
    expect(environmentProblems(overlay, namespace, bootstrap)).toEqual([
      'its namespace entry renders no default-deny NetworkPolicy',
      'Job/voucher-migrate: no database bootstrap Job for its database',
    ]);
    expect(environmentProblems(overlay, render('namespaces/dev'), render('bootstrap/dev'))).toEqual([
      'its namespace entry renders no Namespace open-platform',
      'Job/voucher-db-bootstrap: bootstraps in namespace open-platform-dev, the overlay runs in open-platform',
    ]);
  });

  it('fails when an overlay lacks a network policy for a workload or a ServiceMonitor', () => {
    const objects = render('voucher-api/overlays/prod').filter(
      (o) => o.kind !== 'ServiceMonitor' && !(o.kind === 'NetworkPolicy' && o.metadata.name.startsWith('voucher-api')),
    );
    const { problems } = checkOverlay(objects, documentedSecrets(docs));
    expect(problems).toEqual([
      'Deployment/voucher-api: no NetworkPolicy opens its traffic',
      'Job/voucher-migrate: no NetworkPolicy opens its traffic',
      'Deployment/voucher-api: no ServiceMonitor scrapes its Service',
    ]);
  });

  it('fails on a container it does not know rather than passing it unchecked', () => {
    const objects = render('bot-dispatcher/overlays/dev');
    const deployment = objects.find((o) => o.kind === 'Deployment')!;
    deployment.spec.template.spec.containers.push({ name: 'sidecar', image: 'busybox:1.36' });
    const { problems } = checkOverlay(objects, documentedSecrets(docs));
    expect(problems).toEqual([
      'Deployment/bot-dispatcher container sidecar: runs neither an app of this repository nor psql; the kit check does not know it',
    ]);
  });
});
