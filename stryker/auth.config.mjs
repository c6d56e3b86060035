import { mutationTarget } from './target.mjs';

export default mutationTarget({
  name: 'auth',
  jestConfig: 'libs/auth/jest.config.ts',
  mutate: ['libs/auth/src/**/*.ts', '!libs/auth/src/**/*.spec.ts', '!libs/auth/src/index.ts', '!libs/auth/src/auth.module.ts'],
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
});
