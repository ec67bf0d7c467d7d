// @ts-check
'use strict';
// ENCRYPTION_KEYS for local runs: `<keyId>:<base64 of 32 random bytes>`, comma-separated; the
// first key encrypts, all decrypt. Production sets it (the Kubernetes Secret names it).

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { LOCAL_DIR } = require('./defaults');

const KEY_FILE = path.join(LOCAL_DIR, 'encryption-keys');

/** A fresh single-key ENCRYPTION_KEYS value. */
function generateEncryptionKeys() {
  return `local${crypto.randomBytes(4).toString('hex')}:${crypto.randomBytes(32).toString('base64')}`;
}

/**
 * ENCRYPTION_KEYS when set; otherwise this clone's own key from .data/encryption-keys (0600),
 * generated on first use (said once on stderr) so that secrets stored by one run read in the next.
 */
function localEncryptionKeys() {
  if (process.env.ENCRYPTION_KEYS) return process.env.ENCRYPTION_KEYS;
  try {
    return fs.readFileSync(KEY_FILE, 'utf8').trim();
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'ENOENT') throw err;
  }
  const keys = generateEncryptionKeys();
  fs.mkdirSync(LOCAL_DIR, { recursive: true });
  try {
    fs.writeFileSync(KEY_FILE, `${keys}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code === 'EEXIST') return fs.readFileSync(KEY_FILE, 'utf8').trim(); // written concurrently
    throw err;
  }
  process.stderr.write(
    `Generated a local encryption key for secrets at rest in ${path.relative(process.cwd(), KEY_FILE) || KEY_FILE}; set ENCRYPTION_KEYS to use your own (production must).\n`,
  );
  return keys;
}

module.exports = { generateEncryptionKeys, localEncryptionKeys };
