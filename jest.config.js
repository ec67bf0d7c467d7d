// `npm test` runs every project in one Jest process, so one summary counts all tests.
module.exports = {
  projects: ['<rootDir>/apps/*/jest.config.js', '<rootDir>/libs/*/jest.config.js'],
  // A global option: the projects' own testTimeout (jest.preset.js) is ignored in a multi-project run.
  testTimeout: 30000,
  // Always in worker processes, each replaced once it holds more than this after a file: on two cores Jest would
  // otherwise run every file in its own process, whose heap then grows with every suite until it runs out.
  workerIdleMemoryLimit: '1GB',
};
