import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sqlFileOf, STORE_EXAMPLES, storeSql } from './store-sql';

/** The reviewed `.sql` beside each store is what its methods run now: a changed statement without `npm run db:sql` fails. */
describe('the SQL files of the stores', () => {
  it.each(STORE_EXAMPLES.map((entry) => [sqlFileOf(entry), entry] as const))('%s is current', async (file, entry) => {
    const checkedIn = readFileSync(join(__dirname, '../..', file), 'utf8');
    if (checkedIn !== (await storeSql(entry))) {
      throw new Error(`${file} is stale: a statement of its store changed; run \`npm run db:sql\` and commit it`);
    }
  });

  it('records the named parameters of a prepared statement as the values it binds', async () => {
    const text = await storeSql(STORE_EXAMPLES.find((entry) => entry.file.endsWith('redemptions.store.ts'))!);
    expect(text).toContain('-- prepared as redemption_redeem_by_qr_token');
    expect(text).toMatch(/"order-1"/);
  });
});
