module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'audit',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
};
