// @ts-check
'use strict';
// `npm run webhook:receive -- [--secret whsec_...] [--https] [--port 3900] [--status 200]`: a webhook
// receiver on loopback that prints every delivery (the headers that matter, the body) and checks
// its signature. The docstore signs with the webhook's secret (Standard Webhooks: pass --secret);
// the gateway signs nothing (receivers check the custom headers it sends) and delivers over
// https only: --https serves a certificate from this clone's local CA (.data/webhook-ca), which
// `npm start` gives the gateway to trust.

const crypto = require('node:crypto');
const http = require('node:http');
const https = require('node:https');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { ensureLocalCa, issueCertificate, LOCAL_CA_CERT, LOCAL_CA_DIR } = require('./local-ca');

const DEFAULT_PORT = 3900;
/** How far a signed timestamp may be from now, as the docstore's receivers are told to check. */
const TOLERANCE_SECONDS = 300;
/** Transport headers, left out of the print: they say nothing about the delivery. */
const TRANSPORT = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'accept-encoding', 'accept']);

/**
 * Standard Webhooks verification, as libs/webhooks' verifyWebhook does it (the tool runs before
 * any build, so it cannot load that one; the e2e tests check both against the docstore's deliveries).
 * @param {string} secret `whsec_` + base64, as the docstore showed it at creation
 * @param {import('node:http').IncomingHttpHeaders} headers
 * @param {string} body the raw body
 * @param {number} now Unix seconds
 * @returns {string} "valid", or why not
 */
function checkSignature(secret, headers, body, now) {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string')
    return 'INVALID: no webhook-id, webhook-timestamp or webhook-signature header';
  if (!/^\d+$/.test(timestamp) || Math.abs(now - Number(timestamp)) > TOLERANCE_SECONDS)
    return `INVALID: webhook-timestamp ${timestamp} is more than ${TOLERANCE_SECONDS} s from now`;
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  const expected = crypto.createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  const matches = signatures.split(' ').some((candidate) => {
    const [version, value] = candidate.split(',', 2);
    const given = Buffer.from(value ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && crypto.timingSafeEqual(given, expected);
  });
  return matches ? 'valid' : "INVALID: no signature matches this secret (another webhook's secret, or a changed body?)";
}

/**
 * What one delivery prints.
 * @param {import('node:http').IncomingMessage} req
 * @param {string} body
 * @param {string | undefined} secret
 * @param {number} n
 */
function describeDelivery(req, body, secret, n) {
  const lines = [`#${n} ${new Date().toISOString()} ${req.method} ${req.url}`];
  for (const [name, value] of Object.entries(req.headers)) if (!TRANSPORT.has(name)) lines.push(`  ${name}: ${value}`);
  const signed = req.headers['webhook-signature'] !== undefined;
  const check = !signed
    ? 'none (unsigned: the gateway signs nothing; check the custom headers it sends)'
    : secret
      ? checkSignature(secret, req.headers, body, Math.floor(Date.now() / 1000))
      : "not checked (pass --secret <the webhook's whsec_ secret>)";
  lines.push(`  signature: ${check}`);
  let shown = body;
  try {
    shown = JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    // not JSON: as received
  }
  lines.push(...shown.split('\n').map((l) => `  ${l}`), '');
  return lines.join('\n');
}

/**
 * Starts the receiver; resolves once it listens.
 * @param {{ port?: number, secret?: string, https?: boolean, status?: number, caDir?: string, out?: (text: string) => void }} options
 * @returns {Promise<{ url: string, caFile: string | null, caCreated: boolean, close(): Promise<void> }>}
 */
async function startReceiver(options) {
  const out = options.out ?? ((text) => process.stdout.write(`${text}\n`));
  const status = options.status ?? 200;
  let n = 0;
  /** @type {import('node:http').RequestListener} */
  const handle = (req, res) => {
    const chunks = /** @type {Buffer[]} */ ([]);
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      out(describeDelivery(req, Buffer.concat(chunks).toString('utf8'), options.secret, ++n));
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : `status ${status}`);
    });
  };
  let caFile = null;
  let caCreated = false;
  /** @type {import('node:http').Server} */
  let server;
  if (options.https) {
    const ca = ensureLocalCa(options.caDir ?? LOCAL_CA_DIR);
    caFile = ca.certFile;
    caCreated = ca.created;
    server = https.createServer(issueCertificate(ca), handle);
  } else {
    server = http.createServer(handle);
  }
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_PORT, '127.0.0.1', () => resolve(undefined));
  });
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `${options.https ? 'https' : 'http'}://127.0.0.1:${address.port}/hook`,
    caFile,
    caCreated,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** @param {string[]} argv */
function parse(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      secret: { type: 'string' },
      https: { type: 'boolean', default: false },
      port: { type: 'string', default: String(DEFAULT_PORT) },
      status: { type: 'string', default: '200' },
      'ca-dir': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  const port = Number(values.port);
  const status = Number(values.status);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number (0 picks a free one), not ${values.port}.`);
  if (!Number.isInteger(status) || status < 200 || status > 599) throw new Error(`--status must be an HTTP status from 200 to 599, not ${values.status}.`);
  if (values.secret !== undefined && !/^(whsec_)?[A-Za-z0-9+/]+={0,2}$/.test(values.secret))
    throw new Error("--secret must be the webhook's secret as the docstore showed it (whsec_ + base64).");
  return { help: values.help, secret: values.secret, https: values.https, port, status, caDir: values['ca-dir'] };
}

const USAGE = `usage: npm run webhook:receive -- [--secret whsec_...] [--https] [--port ${DEFAULT_PORT}] [--status 200] [--ca-dir ${path.relative(process.cwd(), LOCAL_CA_DIR)}]
  --secret   the docstore webhook's signing secret: each delivery's signature is checked
  --https    serve https with a certificate of this clone's local CA (the gateway delivers over https only)
  --port     where to listen on 127.0.0.1 (0: a free port)
  --status   what to answer (e.g. 500 to watch retries)`;

module.exports = { startReceiver, checkSignature, parse };

if (require.main === module) {
  (async () => {
    const args = parse(process.argv.slice(2));
    if (args.help) return process.stdout.write(`${USAGE}\n`);
    const receiver = await startReceiver(args);
    const say = (/** @type {string} */ text) => process.stderr.write(`[webhook:receive] ${text}\n`);
    say(`listening on ${receiver.url} (any path); answering ${args.status}; Ctrl-C stops`);
    if (receiver.caFile) {
      const ca = path.relative(process.cwd(), receiver.caFile);
      if (receiver.caFile === LOCAL_CA_CERT) {
        say(`certificate signed by the local CA ${ca}; \`npm start\` gives it to the gateway (NODE_EXTRA_CA_CERTS)`);
        if (receiver.caCreated) say('the CA is new: restart `npm start` if it is running, so the gateway trusts it');
      } else {
        say(`certificate signed by the CA ${receiver.caFile}; start the gateway with NODE_EXTRA_CA_CERTS=${receiver.caFile} to trust it`);
      }
    }
    say(`the services deliver to loopback only with WEBHOOK_ALLOWED_TARGETS=127.0.0.1 (e.g. \`WEBHOOK_ALLOWED_TARGETS=127.0.0.1 npm start\`)`);
    for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => receiver.close().then(() => process.exit(0)));
  })().catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
