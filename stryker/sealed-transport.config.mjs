import { mutationTarget } from './target.mjs';

// The checks of sealed transport: the cipher, the service's rules, the guard, the admission and the
// middleware's checks up to the logical call (its answer capture is left to the e2e tests).
export default mutationTarget({
  name: 'sealed-transport',
  jestConfig: 'apps/voucher-api/jest.config.ts',
  mutate: [
    'apps/voucher-api/src/sealed-transport/seal-cipher.ts',
    'apps/voucher-api/src/sealed-transport/sealed-transport.service.ts',
    'apps/voucher-api/src/sealed-transport/sealed-transport.guard.ts',
    'apps/voucher-api/src/sealed-transport/sealed-call.admission.ts',
    'apps/voucher-api/src/sealed-transport/sealed-call.middleware.ts:44-114',
  ],
  // The specs of src/sealed-transport as one test file, which loads the libraries once per mutant.
  testMatch: ['<rootDir>/test/sealed-mutation-suite.ts'],
  // The few helpers of @app/testing they use, without the rest of its barrel.
  moduleNameMapper: { '^@app/testing$': '<rootDir>/../../libs/testing/src/database-helpers.ts' },
  // test-vector.spec.ts reads the documented vector.
  ignorePatterns: ['!docs/sealed-transport.md'],
});
