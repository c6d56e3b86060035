export default {
  displayName: 'bot-api',
  preset: '../../jest.preset.js',
  rootDir: __dirname,
};
