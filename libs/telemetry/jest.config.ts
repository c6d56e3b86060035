export default {
  displayName: 'telemetry',
  preset: '../../jest.preset.js',
  rootDir: __dirname,
};
