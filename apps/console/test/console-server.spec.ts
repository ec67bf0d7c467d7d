import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { trickleBody } from '@app/testkit';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { createConsoleServer, CONTENT_SECURITY_POLICY, serviceFor, pickEncoding } = require(join(__dirname, '../../../tools/console-server.js')) as {
  createConsoleServer(o: { root: string; targets: Record<string, string>; lingerMs?: number }): Server;
  CONTENT_SECURITY_POLICY: string;
  serviceFor(path: string): string | null;
  pickEncoding(header: string | undefined): 'br' | 'gzip' | null;
};

/** A GET with an Accept-Encoding, its body as received (not decoded). */
function encodedGet(base: string, path: string, acceptEncoding?: string): Promise<{ headers: IncomingMessage['headers']; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { headers: acceptEncoding ? { 'Accept-Encoding': acceptEncoding } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A GET with the path sent as written (fetch would normalise `..` and percent-escapes first). */
function rawGet(base: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(base);
    const req = request({ hostname, port, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const listen = (server: Server) =>
  new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

interface Seen {
  service: string;
  method: string;
  url: string;
  host: string | undefined;
  bytes: number;
}

/** A stand-in service that answers which service it is and what it received. */
function fakeService(name: string, seen: Seen[], onChunk?: (req: IncomingMessage, chunk: Buffer) => void): Server {
  return createServer((req, res) => {
    let bytes = 0;
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      onChunk?.(req, chunk);
    });
    req.on('end', () => {
      seen.push({ service: name, method: req.method!, url: req.url!, host: req.headers.host, bytes });
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ service: name, bytes }));
    });
  });
}

describe('the console server: static build and the three APIs behind one origin', () => {
  const seen: Seen[] = [];
  let root: string;
  let consoleServer: Server;
  let base: string;
  const upstreams: Server[] = [];
  let firstChunkArrived: () => void = () => undefined;

  beforeAll(async () => {
    // The build inside a folder of its own, so a file beside it can show that nothing outside is served.
    root = join(mkdtempSync(join(tmpdir(), 'console-root-')), 'build');
    mkdirSync(join(root, 'assets'), { recursive: true });
    writeFileSync(join(root, 'index.html'), '<!doctype html><script type="module" src="/assets/app.js"></script>');
    writeFileSync(join(root, 'assets', 'app.js'), 'console.log(1)');
    const targets: Record<string, string> = {};
    for (const name of ['docstore', 'gateway', 'ingest-push']) {
      const server = fakeService(name, seen, () => firstChunkArrived());
      upstreams.push(server);
      targets[name] = await listen(server);
    }
    consoleServer = createConsoleServer({ root, targets });
    base = await listen(consoleServer);
  });
  afterAll(async () => {
    await close(consoleServer);
    await Promise.all(upstreams.map(close));
    rmSync(join(root, '..'), { recursive: true, force: true });
  });

  it.each([
    ['/api/v1/client/x/tokens?page=2', 'docstore'],
    ['/api/pushm/bulk', 'ingest-push'],
    ['/DataInserterSales/api/sales/ingestions', 'ingest-push'],
    ['/api/Messages?limit=5', 'gateway'],
    ['/api/Stats', 'gateway'],
  ])('sends %s to the %s', async (path, service) => {
    const res = await fetch(`${base}${path}`, { headers: { Origin: 'https://elsewhere.example' } });
    expect(await res.json()).toEqual({ service, bytes: 0 });
    expect(seen.at(-1)).toMatchObject({ service, url: path, host: new URL(base).host });
    // No CORS: the console and the APIs share an origin, and another origin gets no allowance.
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('serves the build with the strict CSP, and any other path as the single-page app', async () => {
    for (const path of ['/', '/docstore/documents?environment=p']) {
      const res = await fetch(`${base}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await res.text()).toContain('/assets/app.js');
    }
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'self'");
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-inline');
    const asset = await fetch(`${base}/assets/app.js`);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${base}/assets/missing.js`)).status).toBe(404);
    expect(await (await fetch(`${base}/%2e%2e/%2e%2e/etc/passwd`)).text()).toContain('/assets/app.js');
  });

  it('sends text files compressed (brotli, else gzip) and hashed files with a year-long immutable cache', async () => {
    const script = `export const words = ${JSON.stringify('console '.repeat(2000))};\n`;
    writeFileSync(join(root, 'assets', 'index-AbC123.js'), script);
    const br = await encodedGet(base, '/assets/index-AbC123.js', 'gzip, deflate, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('Accept-Encoding');
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(Number(br.headers['content-length'])).toBe(br.body.length);
    expect(br.body.length).toBeLessThan(script.length / 10);
    expect(brotliDecompressSync(br.body).toString()).toBe(script);
    const gz = await encodedGet(base, '/assets/index-AbC123.js', 'gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe(script);
    const plain = await encodedGet(base, '/assets/index-AbC123.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(script);
    // The page itself is compressed too, and checked again on every load.
    const page = await encodedGet(base, '/', 'br');
    expect(page.headers['content-encoding']).toBe('br');
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
  });

  it('picks the encoding the client takes, honouring q=0', () => {
    expect(pickEncoding('gzip, deflate, br')).toBe('br');
    expect(pickEncoding('br;q=0, gzip')).toBe('gzip');
    expect(pickEncoding('*')).toBe('br');
    expect(pickEncoding('identity')).toBeNull();
    expect(pickEncoding(undefined)).toBeNull();
    fc.assert(fc.property(fc.string(), (header) => [null, 'br', 'gzip'].includes(pickEncoding(header))));
  });

  it('streams an upload through: the service has the first bytes while the client is still sending', async () => {
    const arrived = new Promise<void>((resolve) => (firstChunkArrived = resolve));
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${base}/DataInserterSales/api/sales`, { method: 'POST', headers: { 'Content-Type': 'text/csv' } }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', reject);
      req.write(Buffer.alloc(64 * 1024, 'a'));
      // The rest is sent only once the first part has reached the service: a buffering proxy would wait forever.
      void arrived.then(() => req.end(Buffer.alloc(64 * 1024, 'b')));
    });
    const { status, body } = await answer;
    expect(status).toBe(200);
    expect(JSON.parse(body)).toEqual({ service: 'ingest-push', bytes: 128 * 1024 });
  });

  it('routes every path by its prefix alone: the docstore before the gateway, everything else to the files', () => {
    fc.assert(
      fc.property(fc.constantFrom('/api/v1/', '/api/pushm/', '/DataInserterSales/', '/api/', '/', '/assets/', '/apix/'), fc.string(), (prefix, rest) => {
        const routes: Record<string, string> = {
          '/api/v1/': 'docstore',
          '/api/pushm/': 'ingest-push',
          '/DataInserterSales/': 'ingest-push',
          '/api/': 'gateway',
        };
        const expected = routes[prefix] ?? null;
        const path = `${prefix}${rest}`;
        const got = serviceFor(path);
        // `/api/` + "v1/…" is the docstore's too; otherwise the prefix decides.
        const nested = (prefix === '/api/' && /^(v1|pushm)\//.test(rest)) || (prefix === '/' && /^(api|DataInserterSales)\//.test(rest));
        return got === expected || nested;
      }),
    );
  });

  it('never serves a file outside the build, whatever the path', async () => {
    writeFileSync(join(root, '..', 'console-secret.txt'), 'secret');
    const segment = fc.oneof(
      fc.constantFrom('..', '%2e%2e', '%2E%2E', '.', 'assets', 'console-secret.txt', '%2fconsole-secret.txt', '..%2f..%2f'),
      fc.stringMatching(/^[\w.%-]{0,12}$/),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { maxLength: 6 }), async (segments) => {
        const { status, body } = await rawGet(base, `/${segments.join('/')}`);
        expect(body).not.toContain('secret');
        expect([200, 404]).toContain(status);
      }),
      { numRuns: 150 },
    );
  });

  it('answers 502 with a message when a service is down', async () => {
    const down = createConsoleServer({ root, targets: { docstore: 'http://127.0.0.1:1', gateway: 'http://127.0.0.1:1', 'ingest-push': 'http://127.0.0.1:1' } });
    const url = await listen(down);
    try {
      const res = await fetch(`${url}/api/v1/client/x/tokens`);
      expect(res.status).toBe(502);
      expect(await res.json()).toEqual({ message: expect.stringContaining('not reachable') });
    } finally {
      await close(down);
    }
  });

  it('answers a static path that trickles its body at once, and closes the connection after the linger', async () => {
    const lingering = createConsoleServer({ root, targets: {}, lingerMs: 500 });
    try {
      const res = await trickleBody(lingering, { method: 'POST', path: '/', headers: {}, length: 1000, everyMs: 100 });
      expect(res.status).toBe(405);
      expect(res.closedAfterMs).toBeLessThan(500 + 1000);
      expect(res.sent).toBeLessThan(20);
    } finally {
      await close(lingering);
    }
  });

  it('forwards no hop-by-hop header either way: the standard ones, Proxy-*, and those `Connection` names (RFC 9110 7.6.1)', async () => {
    let received: Record<string, unknown> = {};
    const upstream = createServer((req, res) => {
      received = req.headers;
      req.resume();
      req.on('end', () => {
        res.writeHead(200, {
          'Content-Type': 'application/json',
          Connection: 'keep-alive, X-Upstream-Hop',
          'X-Upstream-Hop': 'internal',
          'Keep-Alive': 'timeout=77',
          'Proxy-Authenticate': 'Basic',
          'X-Upstream-Kept': 'yes',
        });
        res.end('{}');
      });
    });
    const target = await listen(upstream);
    const proxy = createConsoleServer({ root, targets: { docstore: target, gateway: target, 'ingest-push': target } });
    const url = new URL(await listen(proxy));
    try {
      const answer = await new Promise<IncomingMessage>((resolve, reject) => {
        const req = request({
          hostname: url.hostname,
          port: url.port,
          path: '/api/v1/x',
          method: 'POST',
          headers: {
            Connection: 'keep-alive, X-Client-Hop, x-other-hop',
            'X-Client-Hop': 'secret',
            'X-Other-Hop': 'also',
            'Keep-Alive': 'timeout=5',
            'Proxy-Authorization': 'Basic c2VjcmV0',
            'Proxy-Anything': '1',
            TE: 'trailers',
            'X-Kept': 'yes',
            'Content-Type': 'application/json',
          },
        });
        req.on('response', resolve);
        req.on('error', reject);
        req.end('{}');
      });
      answer.resume();
      for (const name of ['x-client-hop', 'x-other-hop', 'keep-alive', 'proxy-authorization', 'proxy-anything', 'te'])
        expect(received).not.toHaveProperty(name);
      expect(received['x-kept']).toBe('yes');
      expect(String(received.connection ?? '')).not.toMatch(/hop/i);
      for (const name of ['x-upstream-hop', 'proxy-authenticate']) expect(answer.headers).not.toHaveProperty(name);
      expect(answer.headers['keep-alive']).not.toBe('timeout=77');
      expect(String(answer.headers.connection ?? '')).not.toMatch(/hop/i);
      expect(answer.headers['x-upstream-kept']).toBe('yes');
    } finally {
      await close(proxy);
      await close(upstream);
    }
  });

  it('closes the client connection after a service answers a trickling body and closes its own', async () => {
    // As the services do with a body that trickles: 408, Connection: close.
    const upstream = createServer((req, res) => {
      req.once('data', () => {
        res.writeHead(408, { Connection: 'close', 'Content-Type': 'application/json' });
        res.end('{"message":"slow"}');
      });
    });
    const target = await listen(upstream);
    const proxy = createConsoleServer({ root, targets: { docstore: target, gateway: target, 'ingest-push': target } });
    try {
      const res = await trickleBody(proxy, { method: 'POST', path: '/api/v1/x', headers: {}, length: 1000, everyMs: 100 });
      expect(res.status).toBe(408);
      expect(res.closeHeader).toBe(true);
      expect(res.closedAfterMs).toBeLessThan(1000);
    } finally {
      await close(proxy);
      await close(upstream);
    }
  });
});
