// `npm run test:topology`: the production layout on one machine (tools/topology.js: PgBouncer in transaction mode,
// a 3-master Redis Cluster, two API replicas and one worker per app, nginx in front), with replicas killed and
// restarted under load (apps/*/test/*.topology-spec.ts). Kept out of `npm test`: it needs nginx and PgBouncer
// (.ci/pgbouncer-setup and .ci/nginx-setup install them) and starts a dozen processes.
module.exports = {
  ...require('./jest.preset.js'),
  displayName: 'topology',
  rootDir: __dirname,
  testMatch: ['<rootDir>/apps/*/test/**/*.topology-spec.ts'],
  testTimeout: 150000,
};
