// `npm test` runs every project in one Jest process, so one summary counts all tests.
module.exports = {
  projects: ['<rootDir>/apps/*/jest.config.js', '<rootDir>/libs/*/jest.config.js'],
};
