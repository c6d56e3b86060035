import { getMetadataStorage } from 'class-validator';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import type { ServiceConfig } from '@app/platform';
import { BotConfig } from '../apps/bot-api/src/config/bot.config';
import { DispatcherConfig } from '../apps/bot-dispatcher/src/config/dispatcher.config';
import { VoucherConfig } from '../apps/voucher-api/src/config/voucher.config';

const root = resolve(__dirname, '..');
const SHARED = 'Shared by all three processes';

/** Every environment variable a config class reads: validated properties and properties with defaults. */
function variablesOf(schema: new () => ServiceConfig): string[] {
  const validated = getMetadataStorage()
    .getTargetValidationMetadatas(schema, '', true, false)
    .map((metadata) => metadata.propertyName);
  return [...new Set([...Object.keys(new schema()), ...validated])]
    .filter((name) => /^[A-Z][A-Z0-9_]*$/.test(name))
    .sort();
}

/** Variable names in the table under the `### <heading>` of the operations guide. */
function documented(heading: string): string[] {
  const guide = readFileSync(join(root, 'docs/operations.md'), 'utf8');
  const start = guide.indexOf(`### ${heading}\n`);
  if (start < 0) return [];
  const section = guide.slice(start + heading.length + 5).split(/\n##/)[0];
  return [...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((match) => match[1]);
}

/** What the Kubernetes base gives the container: ConfigMap keys and Secret keys. */
function deployed(service: string): { config: string[]; secrets: string[] } {
  const env = readFileSync(join(root, `k8s/${service}/base/config.env`), 'utf8');
  const config = env
    .split('\n')
    .filter((line) => /^[A-Z]/.test(line))
    .map((line) => line.split('=')[0]);
  const deployment = parse(readFileSync(join(root, `k8s/${service}/base/deployment.yaml`), 'utf8'));
  const secrets = (deployment.spec.template.spec.containers[0].env ?? [])
    .filter((entry: { valueFrom?: { secretKeyRef?: unknown } }) => entry.valueFrom?.secretKeyRef)
    .map((entry: { name: string }) => entry.name);
  return { config, secrets };
}

const services: Array<[string, new () => ServiceConfig]> = [
  ['voucher-api', VoucherConfig],
  ['bot-api', BotConfig],
  ['bot-dispatcher', DispatcherConfig],
];

describe('deployment configuration', () => {
  it.each(services)('documents every variable %s reads in the operations guide', (service, schema) => {
    const inGuide = new Set([...documented(SHARED), ...documented(service)]);
    expect(variablesOf(schema).filter((name) => !inGuide.has(name))).toEqual([]);
  });

  it.each(services)(
    'sets every variable %s reads in its Kubernetes ConfigMap or Secret, never both',
    (service, schema) => {
      const { config, secrets } = deployed(service);
      const given = new Set([...config, ...secrets]);
      expect(variablesOf(schema).filter((name) => !given.has(name))).toEqual([]);
      expect(config.filter((name) => secrets.includes(name))).toEqual([]);
      expect(config.filter((name) => /KEY$|SECRET|PASSWORD/.test(name) && name !== 'REDIS_KEY_PREFIX')).toEqual([]);
    },
  );

  it.each(services)('runs %s with the same NODE_OPTIONS in its image and its Kubernetes Deployment', (service) => {
    const dockerfile = readFileSync(join(root, `docker/${service}.Dockerfile`), 'utf8');
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    const image = /NODE_OPTIONS="([^"]*)"/.exec(runtime)?.[1];
    const deployment = parse(readFileSync(join(root, `k8s/${service}/base/deployment.yaml`), 'utf8'));
    const pod = (deployment.spec.template.spec.containers[0].env ?? []).find(
      (entry: { name: string }) => entry.name === 'NODE_OPTIONS',
    );
    expect(image).toMatch(/--max-old-space-size=\d+/);
    expect(pod?.value).toBe(image);
  });

  it('documents no variable that no service reads', () => {
    const read = new Set(services.flatMap(([, schema]) => variablesOf(schema)));
    const inGuide = [SHARED, ...services.map(([service]) => service)].flatMap(documented);
    expect(inGuide.filter((name) => !read.has(name))).toEqual([]);
  });
});
