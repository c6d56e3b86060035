import { IdempotencyStore } from '../../../libs/idempotency/src/idempotency.store';
import { store, type StoreExamples } from '../example-types';

const TARGET = {
  scope: 'app:11111111-1111-4111-8111-111111111111',
  key: 'idempotency-key',
  route: 'POST /redemptions',
  fingerprint: 'body-fingerprint',
};
const CLAIM = { scope: TARGET.scope, key: TARGET.key, lockToken: '66666666-6666-4666-8666-666666666666' };
const OPTIONS = { ttlMs: 86_400_000, lockTimeoutMs: 30_000, purgeIntervalMs: 0 };

/** The store with a fixed lock token, so that the statements' example values stay the same from run to run. */
class ExampleIdempotencyStore extends IdempotencyStore {
  protected override newLockToken(): string {
    return CLAIM.lockToken;
  }
}

export const STORE_EXAMPLES: readonly StoreExamples[] = [
  store<ExampleIdempotencyStore>({
    file: 'libs/idempotency/src/idempotency.store.ts',
    create: (recorder) => new ExampleIdempotencyStore(recorder.asDatabase(), OPTIONS),
    examples: [
      // The recorder answers every statement with one row: the claim is taken by its insert.
      { method: 'claim', run: (s) => s.claim(TARGET.scope, TARGET.key, TARGET.route, TARGET.fingerprint) },
      // The recorder's empty row holds no flag (`held`, `claimed`, `recorded`): these end in 409 after their statement.
      { method: 'claimInTransaction', run: (s, tx) => s.claimInTransaction(tx, TARGET).catch(() => undefined) },
      { method: 'recordFailure', run: (s) => s.recordFailure(TARGET, 422, '{}').catch(() => undefined) },
      { method: 'complete', run: (s, tx) => s.complete(tx, CLAIM, 201, '{"data":{}}') },
      { method: 'release', run: (s) => s.release(CLAIM) },
      { method: 'purgeExpired', run: (s) => s.purgeExpired() },
      { method: 'storedAnswer', run: (s) => s.storedAnswer(TARGET).catch(() => undefined) },
    ],
  }),
];
