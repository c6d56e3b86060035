// The upgrade test (`npm run test:upgrade`): the previous release and this build as real processes, rolled
// under traffic; run alone, after `npm test`.
export default {
  displayName: 'upgrade',
  preset: '../../jest.preset.js',
  rootDir: __dirname,
  testMatch: ['<rootDir>/**/*.upgrade-spec.ts', '<rootDir>/**/*.spec.ts'],
  maxWorkers: 1,
  // Two builds, a dozen process starts and the traffic between them; a few minutes on a loaded 2-core box.
  testTimeout: 15 * 60_000,
};
