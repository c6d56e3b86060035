export default {
  displayName: 'telegram-shapes',
  preset: '../../jest.preset.js',
  rootDir: __dirname,
};
