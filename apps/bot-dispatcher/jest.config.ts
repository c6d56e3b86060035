export default {
  displayName: 'bot-dispatcher',
  preset: '../../jest.preset.js',
  rootDir: __dirname,
};
