import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sqlFileOf, STORE_EXAMPLES, storeSql } from './store-sql';

/** `npm run db:sql`: rewrites the `.sql` file beside each store with the statements its methods run. */
async function main(): Promise<void> {
  for (const entry of STORE_EXAMPLES) {
    writeFileSync(join(__dirname, '../..', sqlFileOf(entry)), await storeSql(entry));
    console.log(`wrote ${sqlFileOf(entry)}`);
  }
}

main().catch((error: Error) => {
  console.error(`db:sql failed: ${error.message}`);
  process.exit(1);
});
