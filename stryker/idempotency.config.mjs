import { mutationTarget } from './target.mjs';

// The library's decisions and the code that carries them out; the store's SQL is left to its e2e tests.
export default mutationTarget({
  name: 'idempotency',
  jestConfig: 'libs/idempotency/jest.config.ts',
  mutate: [
    'libs/idempotency/src/idempotency-decisions.ts',
    'libs/idempotency/src/idempotency-target.ts',
    'libs/idempotency/src/idempotency.interceptor.ts',
    'libs/idempotency/src/idempotent-call.ts',
    'libs/idempotency/src/handler-execution.ts',
  ],
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
});
