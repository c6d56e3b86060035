import type { Config } from 'jest';

// One Jest run over every Nx project (apps and libs), so that `npm test` shares workers.
const config: Config = {
  projects: ['<rootDir>/apps/*', '<rootDir>/libs/*', '<rootDir>/scripts'],
  maxWorkers: 2,
};

export default config;
