import type { Config } from 'jest';

// One Jest run over every Nx project (apps and libs), so that `npm test` shares workers.
const config: Config = {
  projects: ['<rootDir>/apps/*', '<rootDir>/libs/*', '<rootDir>/scripts'],
  maxWorkers: 2,
  // A global option: Jest ignores testTimeout inside project configs of a multi-project run.
  testTimeout: 30000,
  globalSetup: '<rootDir>/jest.global-setup.js',
  globalTeardown: '<rootDir>/jest.global-teardown.js',
};

export default config;
