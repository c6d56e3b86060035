export default {
  displayName: 'bot-schema',
  preset: '../../jest.preset.js',
  rootDir: __dirname,
};
