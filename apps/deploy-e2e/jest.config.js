// Checks of what ships: Dockerfile lint, the pruned production install booting from dist/,
// and the Kubernetes manifests against the Kubernetes schemas and the apps' settings.
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'deploy-e2e',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
};
