export default {
  displayName: 'idempotency',
  preset: '../../jest.preset.js',
  rootDir: __dirname,
};
