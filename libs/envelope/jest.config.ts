export default {
  displayName: 'envelope',
  preset: '../../jest.preset.js',
  rootDir: __dirname,
};
