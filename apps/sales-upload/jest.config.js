module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'sales-upload',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
