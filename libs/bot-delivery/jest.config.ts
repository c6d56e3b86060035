export default {
  displayName: 'bot-delivery',
  preset: '../../jest.preset.js',
  rootDir: __dirname,
};
