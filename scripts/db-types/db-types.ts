import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSchemaTypes, SCHEMA_TARGETS } from './schema-types';

/** `npm run db:types`: rewrites each generated schema file from a freshly migrated database. */
async function main(): Promise<void> {
  for (const target of SCHEMA_TARGETS) {
    writeFileSync(join(__dirname, '../..', target.file), await generateSchemaTypes(target));
    console.log(`wrote ${target.file}`);
  }
}

main().catch((error: Error) => {
  console.error(`db:types failed: ${error.message}`);
  process.exit(1);
});
