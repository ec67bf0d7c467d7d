// `npm run test:tools`: checks that need a system tool beyond Node (apps/*/test/*.tools-spec.ts): promtool for
// k8s/observability. Kept out of `npm test`, which must pass on a fresh machine with only Node; `.ci/run` and the
// GitHub workflow install the tools (.ci/promtool-setup) and run these too.
module.exports = {
  ...require('./jest.preset.js'),
  displayName: 'tools',
  rootDir: __dirname,
  testMatch: ['<rootDir>/apps/*/test/**/*.tools-spec.ts'],
  testTimeout: 60000,
};
