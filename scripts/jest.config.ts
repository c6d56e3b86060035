export default {
  displayName: 'scripts',
  preset: '../jest.preset.js',
  rootDir: __dirname,
  testMatch: ['<rootDir>/**/*.spec.ts', '<rootDir>/**/*.e2e-spec.ts'],
};
