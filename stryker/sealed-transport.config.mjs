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
  // test-vector.spec.ts reads docs/, which the sandbox does not copy; seal-cipher.spec.ts opens seals itself.
  testMatch: [
    '<rootDir>/src/sealed-transport/seal-cipher.spec.ts',
    '<rootDir>/src/sealed-transport/sealed-transport.service.spec.ts',
    '<rootDir>/src/sealed-transport/sealed-transport.guard.spec.ts',
    '<rootDir>/src/sealed-transport/sealed-call.middleware.spec.ts',
  ],
});
