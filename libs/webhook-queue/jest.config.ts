export default {
  displayName: 'webhook-queue',
  preset: '../../jest.preset.js',
  rootDir: __dirname,
};
