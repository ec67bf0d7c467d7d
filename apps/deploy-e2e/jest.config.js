// Checks of what ships: Dockerfile lint, the pruned production install booting from dist/,
// the Kubernetes manifests against the Kubernetes schemas and the apps' settings, and the
// READMEs (their marked examples run against `npm start`'s stack; their links stay in the repository).
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'deploy-e2e',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
};
