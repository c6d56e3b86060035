// The fault suite (`npm run test:faults`): real processes, killed and restarted; run alone, after `npm test`.
export default {
  displayName: 'faults',
  preset: '../../jest.preset.js',
  rootDir: __dirname,
  testMatch: ['<rootDir>/**/*.fault-spec.ts'],
  // Scenarios share one Redis server (one of them stops it): one at a time.
  maxWorkers: 1,
  testTimeout: 60_000,
};
