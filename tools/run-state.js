// @ts-check
'use strict';
// What a running `npm start` uses, in a file of this clone (.data/run-state.json): the credential commands
// started in another shell read it, so they use that database even when its port or URL was changed.
// The file is written once the database and Redis answer, removed when `npm start` stops, and ignored
// when the process that wrote it is gone (a crash or SIGKILL leaves it behind).

const fs = require('node:fs');
const path = require('node:path');
const { RUN_STATE_FILE } = require('./defaults');

/**
 * @typedef {{ pid: number, databaseUrl: string, redisUrl: string, ports: Record<string, number> }} RunState
 */

/**
 * Whether process `pid` runs (and, where /proc tells, runs `program`), so a pid reused by something else after a
 * crash does not count.
 * @param {number} pid
 * @param {string} [program] a word of its command line
 */
function processAlive(pid, program) {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it exists but belongs to another user (the embedded PostgreSQL runs as `postgres` under root).
    if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EPERM') return false;
  }
  if (!program) return true;
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(program);
  } catch {
    return true; // no /proc (macOS): the pid is all there is to go on
  }
}

/**
 * Records what this process (`npm start`) uses, readable by its owner only (the URLs may carry passwords).
 * @param {Omit<RunState, 'pid'>} state
 * @param {string} [file]
 */
function writeRunState(state, file = RUN_STATE_FILE) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}`;
  fs.writeFileSync(partial, `${JSON.stringify({ pid: process.pid, ...state }, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(partial, file);
}

/**
 * Removes the file if this process wrote it (another `npm start` may have written it since).
 * @param {string} [file]
 */
function clearRunState(file = RUN_STATE_FILE) {
  if (readRunState(file, { alive: () => true })?.pid === process.pid) fs.rmSync(file, { force: true });
}

/**
 * What a running `npm start` uses, or null: no file, an unreadable one, or its process is gone.
 * @param {string} [file]
 * @param {{ alive?: (pid: number) => boolean }} [options]
 * @returns {RunState | null}
 */
function readRunState(file = RUN_STATE_FILE, { alive = (pid) => processAlive(pid, 'node') } = {}) {
  let state;
  try {
    state = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
  if (typeof state?.databaseUrl !== 'string' || !alive(state.pid)) return null;
  return state;
}

module.exports = { writeRunState, clearRunState, readRunState, processAlive };
