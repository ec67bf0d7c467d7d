// The console's Node-side checks: the pure helpers, the bundle budget (builds with Vite) and the same-origin server.
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'console',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
};
