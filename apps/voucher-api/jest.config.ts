export default {
  displayName: 'voucher-api',
  preset: '../../jest.preset.js',
  rootDir: __dirname,
};
