// @ts-check
'use strict';
// `node tools/package-json.js <app> [...]`: writes dist/<app>/package.json and package-lock.json
// with only the npm packages the app's code (and the libs it imports) uses, as Nx's project
// graph sees them, at the exact versions of the workspace's lock file. The image and the
// boot test install from these with `npm ci --omit=dev`.

const fs = require('node:fs');
const path = require('node:path');
const { createProjectGraphAsync } = require('@nx/devkit');
const { createPackageJson, createLockFile } = require('@nx/js');

const ROOT = path.join(__dirname, '..');

/** @param {string[]} apps */
async function main(apps) {
  if (apps.length === 0) throw new Error('usage: node tools/package-json.js <app> [...]');
  const graph = await createProjectGraphAsync({ exitOnError: true });
  for (const app of apps) {
    if (!graph.nodes[app]) throw new Error(`unknown project "${app}"`);
    const out = path.join(ROOT, 'dist', app);
    if (!fs.existsSync(out)) throw new Error(`dist/${app} does not exist: build it first (npx nx run ${app}:build)`);
    // skipOverrides: the workspace's overrides name dev tools the production install never sees.
    const pkg = Object.assign(createPackageJson(app, graph, { isProduction: true, root: ROOT, skipOverrides: true, skipPackageManager: true }), {
      private: true,
      main: `apps/${app}/src/main.js`,
      scripts: { start: `node apps/${app}/src/main.js` },
      engines: require(path.join(ROOT, 'package.json')).engines,
    });
    fs.writeFileSync(path.join(out, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
    fs.writeFileSync(path.join(out, 'package-lock.json'), createLockFile(pkg, graph, 'npm'));
    process.stdout.write(`dist/${app}/package.json: ${Object.keys(pkg.dependencies ?? {}).length} production dependencies\n`);
  }
}

main(process.argv.slice(2)).catch((/** @type {Error} */ error) => {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});
