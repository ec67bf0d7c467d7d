// `npm run test:browser`: the /docs pages in headless Chromium (apps/*/test/*.browser-spec.ts).
// Kept out of `npm test`, which must pass on a fresh machine with only Node; `.ci/run` and the
// GitHub workflow install Debian's chromium (.ci/browser-setup) and run these too.
module.exports = {
  ...require('./jest.preset.js'),
  displayName: 'browser',
  rootDir: __dirname,
  testMatch: ['<rootDir>/apps/*/test/**/*.browser-spec.ts'],
  testTimeout: 60000,
};
