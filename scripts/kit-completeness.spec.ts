import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { checkKit, checkOverlay, documentedSecrets } from './kit-completeness';
import { parseManifests, renderOverlay } from './lint-k8s';

const root = resolve(__dirname, '..');
const docs = readFileSync(join(root, 'docs/deployment.md'), 'utf8');

describe('the Kubernetes kit is complete', () => {
  let scratch: string;

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'kit-'));
  });

  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  /** A copy of the kit and its docs to break one thing in. */
  function copyOfKit(name: string): string {
    const copy = join(scratch, name);
    cpSync(join(root, 'k8s'), join(copy, 'k8s'), { recursive: true });
    return copy;
  }

  function edit(file: string, from: string | RegExp, to: string): void {
    const text = readFileSync(file, 'utf8');
    const changed = text.replace(from, to);
    expect(changed).not.toBe(text);
    writeFileSync(file, changed);
  }

  it('gives every container of every overlay what its configuration requires in production, from documented Secrets only', () => {
    const { overlays, problems } = checkKit(root);
    expect(problems).toEqual([]);
    expect(overlays).toEqual(
      expect.arrayContaining(['k8s/overlays/dev', 'k8s/overlays/prod', 'k8s/voucher-api/overlays/prod']),
    );
    expect(overlays.length).toBeGreaterThanOrEqual(8);
  });

  it('reads the secret commands of the deployment guide', () => {
    const secrets = documentedSecrets(docs);
    expect([...secrets.keys()].sort()).toEqual([
      'bot-api-secrets',
      'bot-dispatcher-secrets',
      'database-admin',
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
    edit(join(copy, 'k8s/voucher-api/base/config.env'), /^ACCOUNT_JWT_ISSUER=.*\n/m, '');
    const { problems } = checkKit(copy, docs);
    expect(problems).toContain(
      'k8s/voucher-api/overlays/prod: Deployment/voucher-api container voucher-api: ACCOUNT_JWT_ISSUER: required when NODE_ENV=production',
    );
    expect(problems).toContain(
      'k8s/overlays/dev: Deployment/voucher-api container voucher-api: ACCOUNT_JWT_ISSUER: required when NODE_ENV=production',
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

  it("fails when the database host of one environment is missing, since the default is the developer's machine", () => {
    const copy = copyOfKit('no-db-host');
    edit(join(copy, 'k8s/bot-dispatcher/base/config.env'), /^DB_HOST=.*\n/m, '');
    edit(join(copy, 'k8s/bot-dispatcher/env/prod/kustomization.yaml'), /^ {6}- DB_HOST=.*\n/m, '');
    const { problems } = checkKit(copy, docs);
    expect(problems).toContain(
      "k8s/bot-dispatcher/overlays/prod: Deployment/bot-dispatcher container bot-dispatcher: DB_HOST is not set (its default only fits a developer's machine)",
    );
    expect(problems.filter((problem) => problem.includes('/dev'))).toEqual([]);
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
    const objects = parseManifests(renderOverlay(join(root, 'k8s/bot-api/overlays/prod')));
    const migration = objects.find((o) => o.kind === 'Job' && o.metadata.name === 'bot-migrate')!;
    migration.spec.template.spec.containers[0].env.find((e: { name: string }) => e.name === 'DB_USER').value =
      'postgres';
    const { problems } = checkOverlay(objects, documentedSecrets(docs));
    expect(problems).toEqual([
      'Job/bot-db-bootstrap: creates migrator bot_migrator, but the migration Job connects as postgres',
    ]);
  });

  it('fails when an overlay lacks its namespace, a network policy, a ServiceMonitor or the database bootstrap', () => {
    const objects = parseManifests(renderOverlay(join(root, 'k8s/voucher-api/overlays/prod'))).filter(
      (o) =>
        o.kind !== 'Namespace' &&
        o.kind !== 'ServiceMonitor' &&
        !(o.kind === 'NetworkPolicy' && o.metadata.name === 'voucher-api') &&
        !(o.kind === 'Job' && o.metadata.name === 'voucher-db-bootstrap'),
    );
    const { problems } = checkOverlay(objects, documentedSecrets(docs));
    expect(problems).toEqual([
      'renders no Namespace',
      'Deployment/voucher-api: no NetworkPolicy opens its traffic',
      'Deployment/voucher-api: no ServiceMonitor scrapes its Service',
      'Job/voucher-migrate: no database bootstrap Job for its database',
    ]);
  });

  it('fails on a container it does not know rather than passing it unchecked', () => {
    const objects = parseManifests(renderOverlay(join(root, 'k8s/bot-dispatcher/overlays/dev')));
    const deployment = objects.find((o) => o.kind === 'Deployment')!;
    deployment.spec.template.spec.containers.push({ name: 'sidecar', image: 'busybox:1.36' });
    const { problems } = checkOverlay(objects, documentedSecrets(docs));
    expect(problems).toEqual([
      'Deployment/bot-dispatcher container sidecar: runs neither an app of this repository nor psql; the kit check does not know it',
    ]);
  });
});
