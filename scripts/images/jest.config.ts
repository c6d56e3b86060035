// `npm run test:images` only: it builds and runs container images, which `npm test` leaves to this script.
export default {
  displayName: 'images',
  preset: '../../jest.preset.js',
  rootDir: __dirname,
  testMatch: ['<rootDir>/*.podman-test.ts'],
  testTimeout: 120_000,
};
