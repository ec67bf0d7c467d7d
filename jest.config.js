// `npm test` runs every project in one Jest process, so one summary counts all tests.
module.exports = {
  projects: ['<rootDir>/apps/*/jest.config.js', '<rootDir>/libs/*/jest.config.js'],
  // A global option: the projects' own testTimeout (jest.preset.js) is ignored in a multi-project run.
  testTimeout: 30000,
};
