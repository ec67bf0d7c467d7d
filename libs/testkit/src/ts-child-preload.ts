/** A `node -r` preload that runs TypeScript in a test's child process as Jest does (see ts-child.js). */
export const TS_CHILD_PRELOAD = require.resolve('./ts-child.js');
