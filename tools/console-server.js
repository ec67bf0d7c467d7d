// @ts-check
'use strict';
// The console's one origin for `npm start`: the static Vite build (dist/console) and, by path prefix, the three
// APIs behind it, so the browser talks to one origin and no service needs CORS. Proxying is node:http piping:
// request and response bodies stream through with backpressure (uploads up to 1 GB are never buffered).

const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { pipeline } = require('node:stream');
const zlib = require('node:zlib');

/** The console's Content-Security-Policy: only its own scripts, styles and API calls; no inline script. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers of every static answer (nginx sends the same in Kubernetes: k8s/base/console.yaml). */
const STATIC_HEADERS = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

/** Which service serves a path; first match wins (the docstore's /api/v1/ before the gateway's other /api/). */
const ROUTES = /** @type {const} */ ([
  ['/api/v1/', 'docstore'],
  ['/api/pushm/', 'ingest-push'],
  ['/DataInserterSales/', 'ingest-push'],
  ['/api/', 'gateway'],
]);

/** @param {string} pathname @returns {'docstore' | 'gateway' | 'ingest-push' | null} */
function serviceFor(pathname) {
  for (const [prefix, service] of ROUTES) if (pathname.startsWith(prefix)) return service;
  return null;
}

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

/** Text files are sent compressed (brotli, else gzip) to a client that takes it; images as they are. */
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.json', '.txt']);

/**
 * The encoding to answer with: brotli when the client takes it, else gzip, else none (`q=0` refuses one).
 * @param {string | undefined} header
 * @returns {'br' | 'gzip' | null}
 */
function pickEncoding(header) {
  const accepted = new Map(
    (header ?? '')
      .split(',')
      .map((part) => part.trim().split(';'))
      .filter(([name]) => name)
      .map(([name, ...params]) => {
        const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)).find(Boolean);
        return [name.trim().toLowerCase(), q ? Number(q[1]) : 1];
      }),
  );
  const takes = (/** @type {string} */ name) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  if (takes('br')) return 'br';
  if (takes('gzip')) return 'gzip';
  return null;
}

// Hop-by-hop headers (RFC 9110 7.6.1) stay on their own connection, as do the ones a `Connection` header names
// and every Proxy-* header (credentials for this hop only).
const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

/** @param {http.IncomingHttpHeaders} headers */
function forwardable(headers) {
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
  );
  /** @type {http.OutgoingHttpHeaders} */
  const out = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP.has(name) || named.has(name) || name.startsWith('proxy-')) continue;
    out[name] = value;
  }
  return out;
}

/** How long the rest of a body is read and dropped after an answer that did not want it (the services' and nginx's 5 s). */
const LINGER_MS = 5_000;

/** @param {http.IncomingMessage} req */
function hasBody(req) {
  return req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';
}

/**
 * For an answer given without reading the request body (the files take none): once it is sent, the rest of the
 * body is read and dropped for at most `ms`, then the connection is cut, as the services do (and nginx's
 * lingering close). Closing at once can reset a connection the client is still writing to, losing the answer;
 * never closing lets a client that trickles its body hold the connection for good.
 * @param {http.IncomingMessage} req @param {http.ServerResponse} res @param {number} ms
 */
function lingerAfterAnswer(req, res, ms) {
  res.once('finish', () => {
    if (req.complete) return;
    const timer = setTimeout(() => req.socket.destroy(), ms);
    timer.unref();
    const done = () => clearTimeout(timer);
    req.once('end', done);
    req.once('close', done);
    req.resume();
  });
}

/**
 * @param {{ root: string, targets: Record<'docstore' | 'gateway' | 'ingest-push', string>, lingerMs?: number }} options
 *   root: the Vite build; targets: each service's base URL (http://127.0.0.1:3001 …); lingerMs: LINGER_MS unless a test shortens it
 */
function createConsoleServer({ root, targets, lingerMs = LINGER_MS }) {
  const agent = new http.Agent({ keepAlive: true });
  const rootDir = path.resolve(root);

  /** @param {http.IncomingMessage} req @param {http.ServerResponse} res @param {string} target */
  function proxy(req, res, target) {
    const url = new URL(target);
    const headers = forwardable(req.headers);
    // The service sees the console's Host, so its pagination links point back through the console.
    headers['x-forwarded-for'] = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ');
    headers['x-forwarded-proto'] = 'http';
    const upstream = http.request({ protocol: url.protocol, hostname: url.hostname, port: url.port, method: req.method, path: req.url, headers, agent });
    upstream.on('response', (answer) => {
      const headers = forwardable(answer.headers);
      // A service that closes its connection (a 408 for a body that trickled) ends this exchange: the client's connection
      // closes after the answer too, or the rest of its body would be read for nothing.
      if (/(^|,)\s*close\s*(,|$)/i.test(String(answer.headers.connection ?? ''))) headers.connection = 'close';
      res.writeHead(answer.statusCode ?? 502, headers);
      pipeline(answer, res, () => {});
    });
    upstream.on('error', () => {
      if (res.headersSent) return res.destroy();
      const body = JSON.stringify({ message: 'The service behind the console is not reachable.' });
      res.writeHead(502, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    });
    // The client going away mid-upload ends the upstream request too.
    pipeline(req, upstream, (err) => {
      if (err) upstream.destroy();
    });
  }

  /** Compressed files, made once per file version (the build's text files are a few hundred KB in all). */
  const compressedCache = new Map();
  /** @param {string} file @param {'br' | 'gzip'} encoding @returns {Buffer} */
  function compressed(file, encoding) {
    const key = `${encoding}:${file}:${fs.statSync(file).mtimeMs}`;
    let body = compressedCache.get(key);
    if (!body) {
      const raw = fs.readFileSync(file);
      body =
        encoding === 'br'
          ? zlib.brotliCompressSync(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 9, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length } })
          : zlib.gzipSync(raw, { level: 9 });
      compressedCache.set(key, body);
    }
    return body;
  }

  /** @param {http.IncomingMessage} req @param {http.ServerResponse} res @param {string} pathname */
  function serveStatic(req, res, pathname) {
    if (hasBody(req)) lingerAfterAnswer(req, res, lingerMs);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...STATIC_HEADERS, Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' });
      return res.end('Method Not Allowed\n');
    }
    let file = path.resolve(rootDir, `.${decodeSafe(pathname)}`);
    const inside = file === rootDir || file.startsWith(rootDir + path.sep);
    let isAsset = inside && fs.existsSync(file) && fs.statSync(file).isFile();
    if (!isAsset) {
      // A missing file under /assets/ is a 404; any other path is a page of the single-page app.
      if (pathname.startsWith('/assets/')) {
        res.writeHead(404, { ...STATIC_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' });
        return res.end('Not Found\n');
      }
      file = path.join(rootDir, 'index.html');
      if (!fs.existsSync(file)) {
        res.writeHead(503, { ...STATIC_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' });
        return res.end('The console is not built: run `npx nx build console`.\n');
      }
    }
    const type = TYPES[/** @type {keyof typeof TYPES} */ (path.extname(file))] ?? 'application/octet-stream';
    // Hashed files (everything under /assets/) never change: a year, immutable. index.html is checked every time.
    const cache = pathname.startsWith('/assets/') && isAsset ? 'public, max-age=31536000, immutable' : 'no-cache';
    const encoding = COMPRESSIBLE.has(path.extname(file)) ? pickEncoding(req.headers['accept-encoding']) : null;
    if (encoding) {
      const body = compressed(file, encoding);
      res.writeHead(200, {
        ...STATIC_HEADERS,
        'Content-Type': type,
        'Content-Encoding': encoding,
        Vary: 'Accept-Encoding',
        'Content-Length': body.length,
        'Cache-Control': cache,
      });
      return res.end(req.method === 'HEAD' ? undefined : body);
    }
    res.writeHead(200, { ...STATIC_HEADERS, 'Content-Type': type, 'Content-Length': fs.statSync(file).size, 'Cache-Control': cache, Vary: 'Accept-Encoding' });
    if (req.method === 'HEAD') return res.end();
    pipeline(fs.createReadStream(file), res, () => {});
  }

  const server = http.createServer((req, res) => {
    const pathname = (req.url ?? '/').split('?', 1)[0];
    const service = serviceFor(pathname);
    if (service) proxy(req, res, targets[service]);
    else serveStatic(req, res, pathname);
  });
  // Node's default 5-minute request deadline would cut a large, slow upload; ingest-push polices slow bodies itself.
  server.requestTimeout = 0;
  server.on('close', () => agent.destroy());
  return server;
}

/** @param {string} pathname */
function decodeSafe(pathname) {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return pathname;
  }
}

module.exports = { createConsoleServer, serviceFor, pickEncoding, CONTENT_SECURITY_POLICY, STATIC_HEADERS };
