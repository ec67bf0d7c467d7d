// `npm run test:pooler`: PgBouncer (transaction mode, TEST_DATABASE_POOLER=pgbouncer, started by
// tools/jest-global-setup.js) between the apps and PostgreSQL. The pooler's own checks, and e2e suites of
// each service whose apps run with DATABASE_POOLER=transaction; every test app's close() fails if it left
// session state on a server connection. Any other suite runs this way too:
// `TEST_DATABASE_POOLER=pgbouncer npx jest apps/gateway/test/templates.e2e-spec.ts`.
module.exports = {
  ...require('./jest.preset.js'),
  displayName: 'pooler',
  rootDir: __dirname,
  testMatch: [
    '<rootDir>/libs/testkit/test/*.pooler-spec.ts',
    ...[
      'docstore/test/documents',
      'docstore/test/changes-reconnect',
      'docstore/test/schemas',
      'gateway/test/messages',
      'gateway/test/webhooks',
      'ingest-push/test/sales',
      'ingest-push/test/push-delivery',
    ].map((suite) => `<rootDir>/apps/${suite}.e2e-spec.ts`),
  ],
};
