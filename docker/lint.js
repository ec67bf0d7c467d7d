'use strict';
// Lints the Dockerfiles and the compose file without a Docker engine (hadolint is not
// available here). `node docker/lint.js` prints each problem and exits 1 when there is one.
// Checks: every base image pinned to an exact version or a digest; the final stage runs as
// a non-root USER and has a HEALTHCHECK; the paths the image copies and runs are where the
// Nx build puts them (each app's tsconfig.app.json outDir and rootDir, main.ts compiled).

const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
// A release tag (`20.20.2`, `7.4.5-bookworm`; PostgreSQL's releases are `16.10`), a digest, or both.
const RELEASE = /^[\w./-]+:\d+\.\d+(\.\d+)?(-[\w.-]+)?(@sha256:[0-9a-f]{64})?$/;
const DIGEST = /^[\w./:-]+@sha256:[0-9a-f]{64}$/;

/** `image` is pinned when it names an exact release (not `latest`, not a bare major) or a sha256 digest. */
function pinned(image) {
  return RELEASE.test(image) || DIGEST.test(image);
}

/** Joins continuation lines and drops comments: one instruction per entry. */
function instructions(text) {
  const out = [];
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (current === '' && (line === '' || line.startsWith('#'))) continue;
    current += (current ? ' ' : '') + line.replace(/\\$/, '').trim();
    if (!line.endsWith('\\')) {
      const [keyword, ...rest] = current.split(/\s+/);
      out.push({ keyword: keyword.toUpperCase(), args: rest.join(' ') });
      current = '';
    }
  }
  return out;
}

/** Where `nx run <app>:build` writes main.js, relative to the build output folder, from tsconfig.app.json. */
function buildLayout(app) {
  const dir = path.join(ROOT, 'apps', app);
  const tsconfig = JSON.parse(fs.readFileSync(path.join(dir, 'tsconfig.app.json'), 'utf8'));
  const outDir = path.relative(ROOT, path.resolve(dir, tsconfig.compilerOptions.outDir));
  const rootDir = path.resolve(dir, tsconfig.compilerOptions.rootDir ?? '.');
  const main = path.relative(rootDir, path.join(dir, 'src/main.ts')).replace(/\.ts$/, '.js');
  const project = JSON.parse(fs.readFileSync(path.join(dir, 'project.json'), 'utf8'));
  const outputs = (project.targets?.build?.outputs ?? []).map((o) => o.replace('{workspaceRoot}/', ''));
  return { outDir, main, outputs };
}

function apps() {
  return fs.readdirSync(path.join(ROOT, 'apps')).filter((name) => fs.existsSync(path.join(ROOT, 'apps', name, 'src/main.ts')));
}

/** Problems of one Dockerfile's text, for every app it builds. */
function lintDockerfile(text, appNames = apps()) {
  const problems = [];
  const all = instructions(text);
  const stages = [];
  for (const ins of all) {
    if (ins.keyword === 'FROM') {
      const [image, as, name] = ins.args.split(/\s+/);
      if (!pinned(image) && !stages.some((s) => s.name === image)) problems.push(`base image "${image}" is not pinned to an exact version or digest`);
      stages.push({ name: as?.toUpperCase() === 'AS' ? name : undefined, body: [] });
    } else if (stages.length > 0) {
      stages[stages.length - 1].body.push(ins);
    }
  }
  if (stages.length === 0) return ['no FROM instruction'];
  const final = stages[stages.length - 1].body;
  const user = [...final].reverse().find((i) => i.keyword === 'USER');
  if (!user) problems.push('the final stage sets no USER (it would run as root)');
  else if (/^(root|0)(:|$)/.test(user.args)) problems.push(`the final stage runs as root (USER ${user.args})`);
  if (!final.some((i) => i.keyword === 'HEALTHCHECK')) problems.push('the final stage has no HEALTHCHECK');
  const cmd = final
    .filter((i) => i.keyword === 'CMD' || i.keyword === 'ENTRYPOINT')
    .map((i) => i.args)
    .join(' ');
  const copies = final.filter((i) => i.keyword === 'COPY' && /--from=/.test(i.args)).map((i) => i.args);
  for (const app of appNames) {
    const layout = buildLayout(app);
    const outDir = layout.outDir.split(path.sep).join('/');
    if (!layout.outputs.includes(outDir))
      problems.push(`${app}: tsconfig.app.json writes to ${outDir} but the build target's outputs are ${JSON.stringify(layout.outputs)}`);
    const expected = outDir.replace(app, '$APP');
    if (!copies.some((c) => c.includes(`/${expected}/`))) problems.push(`${app}: the final stage copies nothing from ${expected}/ (where Nx builds it)`);
    const main = layout.main.split(path.sep).join('/').replaceAll(app, '$APP');
    if (!cmd.includes(main)) problems.push(`${app}: CMD does not run ${main} (main.js in the build output)`);
  }
  return problems;
}

/** Problems of the console's Dockerfile beyond the common ones: it copies the Vite build (dist/console) into the final stage. */
function lintStaticDockerfile(text) {
  const all = instructions(text);
  const final = all.slice(all.map((i) => i.keyword).lastIndexOf('FROM') + 1);
  const copies = final.filter((i) => i.keyword === 'COPY' && /--from=/.test(i.args)).map((i) => i.args);
  return copies.some((c) => c.includes('/dist/console/')) ? [] : ['the final stage copies nothing from dist/console/ (where Nx builds the console)'];
}

/** Problems of the compose file: every image it pulls is pinned. */
function lintCompose(text) {
  const problems = [];
  for (const match of text.matchAll(/^\s*image:\s*(\S+)/gm)) {
    const image = match[1];
    if (image.startsWith('services/')) continue; // built here
    if (!pinned(image)) problems.push(`compose image "${image}" is not pinned to an exact version or digest`);
  }
  return problems;
}

/**
 * Problems of the compose file's named volumes on images built from `dockerfile`: a named volume
 * starts as a copy of the image's folder, so each mount path must be a folder the final stage makes
 * (`mkdir -p`) and gives to its USER (`chown -R <user> <it or a parent>`); else the app cannot write.
 */
function lintComposeVolumes(composeText, dockerfileText) {
  const problems = [];
  const compose = require('yaml').parse(composeText);
  const stages = instructions(dockerfileText);
  const final = stages.slice(stages.map((i) => i.keyword).lastIndexOf('FROM') + 1);
  const user = [...final].reverse().find((i) => i.keyword === 'USER')?.args;
  const runs = final.filter((i) => i.keyword === 'RUN').map((i) => i.args);
  const made = (dir) => runs.some((r) => new RegExp(`mkdir -p (\\S+ )*${escape(dir)}( |;|&|$)`).test(r));
  const owned = (dir) =>
    runs.some((r) => [...r.matchAll(/chown -R (\S+) ([^\s;&|]+)/g)].some(([, who, at]) => who === user && (dir === at || dir.startsWith(`${at}/`))));
  for (const [name, service] of Object.entries(compose.services ?? {})) {
    if (!service.build) continue;
    for (const volume of service.volumes ?? []) {
      const [source, target] = String(volume).split(':');
      if (source.startsWith('.') || source.startsWith('/')) continue; // a bind mount keeps the host's owner
      if (!made(target) || !owned(target))
        problems.push(`compose service ${name}: volume ${source} is mounted at ${target}, which the image does not make and give to USER ${user}`);
    }
  }
  return problems;
}

function escape(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function lintAll() {
  const problems = [];
  for (const file of fs.readdirSync(__dirname).filter((f) => /^Dockerfile(\.[\w-]+)?$/.test(f) && !f.endsWith('.dockerignore'))) {
    // docker/Dockerfile builds the Node apps; Dockerfile.console serves the console's static build (no main.js).
    const text = fs.readFileSync(path.join(__dirname, file), 'utf8');
    const found = file === 'Dockerfile' ? lintDockerfile(text) : [...lintDockerfile(text, []), ...lintStaticDockerfile(text)];
    problems.push(...found.map((p) => `docker/${file}: ${p}`));
  }
  const compose = fs.readFileSync(path.join(__dirname, 'compose.yml'), 'utf8');
  problems.push(...lintCompose(compose).map((p) => `docker/compose.yml: ${p}`));
  problems.push(...lintComposeVolumes(compose, fs.readFileSync(path.join(__dirname, 'Dockerfile'), 'utf8')).map((p) => `docker/compose.yml: ${p}`));
  return problems;
}

module.exports = { lintDockerfile, lintStaticDockerfile, lintCompose, lintComposeVolumes, lintAll, pinned };

if (require.main === module) {
  const problems = lintAll();
  for (const p of problems) process.stderr.write(`${p}\n`);
  process.stdout.write(problems.length ? `docker lint: ${problems.length} problem(s)\n` : 'docker lint: ok\n');
  process.exit(problems.length ? 1 : 0);
}
