module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'webhooks',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
};
