export default {
  displayName: 'coordination',
  preset: '../../jest.preset.js',
  rootDir: __dirname,
};
