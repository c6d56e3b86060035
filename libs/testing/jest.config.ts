export default {
  displayName: 'testing',
  preset: '../../jest.preset.js',
  rootDir: __dirname,
};
