'use strict';
// `node bench/run.js` (or `npm run bench`): runs bench/docstore.ts through the swc hook.
require('./register');
require('./docstore.ts');
