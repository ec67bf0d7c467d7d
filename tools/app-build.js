// @ts-check
'use strict';
// `ensureBuilt(app)`: dist/<app> matches the sources, built at most once however many callers
// ask at the same time. A build restores or rewrites dist/<app>, which breaks a process
// loading it, so a current build is never touched: a hash of the inputs is kept beside it, and
// only a stale one is rebuilt, by one caller holding a lock while the others wait for it.
// Beside the hash, each input's size and mtime: when none changed the build is current without
// reading a file, and only a changed one makes the sources be hashed again.

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { ROOT } = require('./defaults');

const DIST = path.join(ROOT, 'dist');
/** A lock older than this whose holder cannot be seen is a leftover. */
const STALE_LOCK_MS = 10 * 60_000;

/** What tsconfig.app.json compiles (sources without their specs) and the settings that shape it. */
function inputs(app) {
  /** @type {string[]} */
  const files = ['tsconfig.base.json', 'package-lock.json', `apps/${app}/tsconfig.app.json`, `apps/${app}/project.json`];
  const walk = (/** @type {string} */ dir) => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.ts') && !/[.-]spec\.ts$/.test(entry.name)) files.push(rel);
    }
  };
  walk(`apps/${app}/src`);
  for (const lib of fs.readdirSync(path.join(ROOT, 'libs'))) {
    if (lib !== 'testkit' && fs.existsSync(path.join(ROOT, 'libs', lib, 'src'))) walk(`libs/${lib}/src`);
  }
  return files.sort();
}

/** The hash of the app's inputs (names and contents). */
function sourceHash(app, files = inputs(app)) {
  const hash = crypto.createHash('sha256');
  for (const file of files)
    hash
      .update(file)
      .update('\0')
      .update(fs.readFileSync(path.join(ROOT, file)))
      .update('\0');
  return hash.digest('hex');
}

/** Each input's size and mtime, by name: what the stamp compares before it hashes anything. */
function fileStats(files) {
  /** @type {Record<string, string>} */
  const stats = {};
  for (const file of files) {
    const stat = fs.statSync(path.join(ROOT, file));
    stats[file] = `${stat.size}:${stat.mtimeMs}`;
  }
  return stats;
}

/** dist/.<app>.build-hash: `{ hash, files }`, the inputs' hash and their stats when it was taken. */
const stampFile = (app) => path.join(DIST, `.${app}.build-hash`);
const entryFile = (app) => path.join(DIST, app, 'apps', app, 'src', 'main.js');

/** @returns {{ hash: string, files: Record<string, string> } | undefined} */
function readStamp(app) {
  try {
    const text = fs.readFileSync(stampFile(app), 'utf8');
    if (!fs.existsSync(entryFile(app))) return undefined;
    // A stamp of before the stats were kept is the bare hash.
    return text.startsWith('{') ? JSON.parse(text) : { hash: text, files: {} };
  } catch {
    return undefined;
  }
}

/** Replaces the stamp in one step (rename), so a reader sees the old one or the new one. */
function writeStamp(app, hash, files) {
  const tmp = `${stampFile(app)}.${process.pid}`;
  fs.writeFileSync(tmp, JSON.stringify({ hash, files }));
  fs.renameSync(tmp, stampFile(app));
}

/** Same names, same sizes and mtimes. */
function sameStats(a, b) {
  const names = Object.keys(a);
  return names.length === Object.keys(b).length && names.every((name) => a[name] === b[name]);
}

/** True when the lock's holder is gone (its process has exited, or the lock is too old to trust). */
function isLeftover(lockDir) {
  try {
    const pid = Number(fs.readFileSync(path.join(lockDir, 'pid'), 'utf8'));
    process.kill(pid, 0);
    return false;
  } catch (err) {
    const code = /** @type {NodeJS.ErrnoException} */ (err).code;
    if (code === 'ESRCH') return true;
    try {
      return Date.now() - fs.statSync(lockDir).mtimeMs > STALE_LOCK_MS;
    } catch {
      return false; // released meanwhile: the next mkdir decides
    }
  }
}

/** Holds dist/.<app>.build-lock (a directory: mkdir is atomic) while `fn` runs. */
async function withLock(app, fn) {
  const lockDir = path.join(DIST, `.${app}.build-lock`);
  fs.mkdirSync(DIST, { recursive: true });
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      break;
    } catch (err) {
      if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EEXIST') throw err;
      if (isLeftover(lockDir)) fs.rmSync(lockDir, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  try {
    fs.writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
    return await fn();
  } finally {
    fs.rmSync(lockDir, { recursive: true, force: true });
  }
}

/** `npx nx build <app>`, its output kept and shown only when it fails. */
function nxBuild(app) {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['nx', 'build', app, '--output-style=static'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    /** @type {Buffer[]} */
    const output = [];
    child.stdout.on('data', (c) => output.push(c));
    child.stderr.on('data', (c) => output.push(c));
    child.on('error', (err) => reject(new Error(`Building ${app} could not start (${err.message}).`)));
    child.on('close', (code) => {
      if (code === 0) return resolve(undefined);
      process.stderr.write(Buffer.concat(output));
      reject(new Error(`Building ${app} failed (above); \`npx nx build ${app}\` shows the same.`));
    });
  });
}

/**
 * Builds dist/<app> unless it is current; callers at the same time share one build. The stats are taken
 * before the hash, so a file changed while it is hashed or built differs from the stamp next time.
 */
async function ensureBuilt(app) {
  const names = inputs(app);
  const files = fileStats(names);
  const stamp = readStamp(app);
  if (stamp && sameStats(stamp.files, files)) return;
  const hash = sourceHash(app, names);
  if (stamp?.hash === hash) return writeStamp(app, hash, files); // touched, not changed
  await withLock(app, async () => {
    if (readStamp(app)?.hash === hash) return; // built by the caller we waited for
    if (process.stderr.isTTY) process.stderr.write(`Building ${app} (its sources changed since the last build)...\n`);
    await nxBuild(app);
    writeStamp(app, hash, files);
  });
}

module.exports = { ensureBuilt, sourceHash };
