export default {
  displayName: 'rate-limits',
  preset: '../../jest.preset.js',
  rootDir: __dirname,
};
