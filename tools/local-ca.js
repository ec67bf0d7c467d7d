// @ts-check
'use strict';
// Certificates for https on loopback, made with the openssl command line (Node can verify
// certificates but not issue them): this clone's local CA under .data/webhook-ca, which
// `npm start` gives the gateway to trust (NODE_EXTRA_CA_CERTS), the receivers' certificates it
// signs, and the test kit's throwaway ones.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { LOCAL_DIR } = require('./defaults');

/** Where `npm run webhook:receive -- --https` keeps the local CA, and where `npm start` looks for it. */
const LOCAL_CA_DIR = path.join(LOCAL_DIR, 'webhook-ca');
const LOCAL_CA_CERT = path.join(LOCAL_CA_DIR, 'ca.crt');

/** The names a loopback receiver answers to. */
const LOOPBACK = ['127.0.0.1', '::1', 'localhost'];

/**
 * @typedef {{ key: string, cert: string }} KeyPair PEM texts
 */

/**
 * Runs openssl in a temporary directory removed afterwards, and returns the named files' texts.
 * @param {(ssl: (...args: string[]) => void, dir: string) => void} steps
 * @param {string[]} outputs
 * @returns {Record<string, string>}
 */
function inScratch(steps, outputs) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'local-ca-'));
  /** @param {string[]} args */
  const ssl = (...args) => {
    try {
      execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    } catch (err) {
      const error = /** @type {NodeJS.ErrnoException & { stderr?: Buffer }} */ (err);
      if (error.code === 'ENOENT') throw new Error('openssl is needed to make certificates; install it (e.g. apt-get install openssl) and run again.');
      throw new Error(`openssl ${args[0]} failed: ${String(error.stderr ?? error.message).trim()}`);
    }
  };
  try {
    steps(ssl, dir);
    return Object.fromEntries(outputs.map((name) => [name, fs.readFileSync(path.join(dir, name), 'utf8')]));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** @param {string[]} hosts */
const subjectAltName = (hosts) => `subjectAltName=${hosts.map((h) => (/^[\d.]+$|:/.test(h) ? `IP:${h}` : `DNS:${h}`)).join(',')}`;

/**
 * A new certificate authority.
 * @param {string} name its common name
 * @param {number} days
 * @returns {KeyPair}
 */
function makeCa(name, days) {
  const out = inScratch(
    (ssl) =>
      ssl(
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        'ca.key',
        '-out',
        'ca.crt',
        '-days',
        String(days),
        '-subj',
        `/CN=${name}`,
        '-addext',
        'basicConstraints=critical,CA:TRUE',
        '-addext',
        'keyUsage=critical,keyCertSign,cRLSign',
      ),
    ['ca.key', 'ca.crt'],
  );
  return { key: out['ca.key'], cert: out['ca.crt'] };
}

/**
 * A server certificate for `hosts`, signed by `ca`.
 * @param {KeyPair} ca
 * @param {string[]} [hosts]
 * @param {number} [days]
 * @returns {KeyPair}
 */
function issueCertificate(ca, hosts = LOOPBACK, days = 30) {
  const out = inScratch(
    (ssl, dir) => {
      fs.writeFileSync(path.join(dir, 'ca.key'), ca.key, { mode: 0o600 });
      fs.writeFileSync(path.join(dir, 'ca.crt'), ca.cert);
      fs.writeFileSync(path.join(dir, 'san.ext'), `${subjectAltName(hosts)}\nextendedKeyUsage=serverAuth\n`);
      ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'srv.key', '-out', 'srv.csr', '-subj', `/CN=${hosts[0]}`);
      ssl(
        'x509',
        '-req',
        '-in',
        'srv.csr',
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        'srv.crt',
        '-days',
        String(days),
        '-extfile',
        'san.ext',
      );
    },
    ['srv.key', 'srv.crt'],
  );
  return { key: out['srv.key'], cert: out['srv.crt'] };
}

/**
 * A certificate for `hosts` that signed itself (what a receiver must not be trusted with).
 * @param {string[]} [hosts]
 * @returns {KeyPair}
 */
function selfSignedCertificate(hosts = LOOPBACK) {
  const out = inScratch(
    (ssl) =>
      ssl(
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        'self.key',
        '-out',
        'self.crt',
        '-days',
        '2',
        '-subj',
        `/CN=${hosts[0]}`,
        '-addext',
        subjectAltName(hosts),
      ),
    ['self.key', 'self.crt'],
  );
  return { key: out['self.key'], cert: out['self.crt'] };
}

/**
 * This clone's local CA in `dir` (ca.crt, and ca.key readable by its owner only), made on first use.
 * @param {string} [dir]
 * @returns {KeyPair & { certFile: string, created: boolean }}
 */
function ensureLocalCa(dir = LOCAL_CA_DIR) {
  const certFile = path.join(dir, 'ca.crt');
  const keyFile = path.join(dir, 'ca.key');
  let created = false;
  if (!fs.existsSync(certFile) || !fs.existsSync(keyFile)) {
    const ca = makeCa('services local webhook CA', 3650);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(keyFile, ca.key, { mode: 0o600 });
    fs.writeFileSync(certFile, ca.cert);
    created = true;
  }
  return { key: fs.readFileSync(keyFile, 'utf8'), cert: fs.readFileSync(certFile, 'utf8'), certFile, created };
}

module.exports = { LOCAL_CA_DIR, LOCAL_CA_CERT, LOOPBACK, makeCa, issueCertificate, selfSignedCertificate, ensureLocalCa };
