import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSchemaTypes, SCHEMA_TARGETS } from './schema-types';

/**
 * The checked-in schema types are what the migrations produce: a migration that changes a table without
 * `npm run db:types` fails here, so the typed statements are always checked against the real schema.
 */
describe('generated schema types', () => {
  it.each(SCHEMA_TARGETS.map((target) => [target.file, target] as const))(
    '%s matches the migrated database',
    async (file, target) => {
      const checkedIn = readFileSync(join(__dirname, '../..', file), 'utf8');
      const generated = await generateSchemaTypes(target);
      if (checkedIn !== generated) {
        throw new Error(`${file} is stale: the migrations changed the schema; run \`npm run db:types\` and commit it`);
      }
    },
    60_000,
  );
});
