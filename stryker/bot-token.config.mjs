import { mutationTarget } from './target.mjs';

// bot-api's bot-token checks: the guards, the token look-up and its lock-out, the directory and the cache.
export default mutationTarget({
  name: 'bot-token',
  jestConfig: 'apps/bot-api/jest.config.ts',
  mutate: [
    'apps/bot-api/src/bots/auth/bot-token.guard.ts',
    'apps/bot-api/src/bots/auth/checked-token.guard.ts',
    'apps/bot-api/src/bots/auth/token-failure-limiter.ts',
    'apps/bot-api/src/bots/auth/bot-token-directory.ts',
    'apps/bot-api/src/bots/auth/bot-token-cache.ts',
    'apps/bot-api/src/bots/auth/bot-token.service.ts',
  ],
  testMatch: [
    '<rootDir>/src/bots/auth/bot-token.spec.ts',
    '<rootDir>/src/bots/auth/bot-token-directory.spec.ts',
    '<rootDir>/src/bots/auth/token-failure-limiter.spec.ts',
  ],
});
