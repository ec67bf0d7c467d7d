import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lingerAfterEarlyAnswer } from './linger';

/** A server that answers 413 after the first chunk of the body, lingering for `ms`. */
async function earlyAnswering(ms: number): Promise<{ server: Server; port: number; received: () => number }> {
  let bytes = 0;
  const server = createServer((req, res) => {
    lingerAfterEarlyAnswer(req, res, ms);
    req.once('data', (chunk: Buffer) => {
      bytes += chunk.length;
      req.pause();
      res.writeHead(413, { 'content-type': 'application/json' }).end('{"message":"The request body is too large."}');
      req.on('data', (c: Buffer) => (bytes += c.length));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port, received: () => bytes };
}

/** Sends `chunks` chunks of 64 KiB, one per `gapMs`, and collects the answer and any socket error. */
function slowUpload(port: number, chunks: number, gapMs: number): Promise<{ status?: number; body: string; error?: string; written: number }> {
  return new Promise((resolve) => {
    const result: { status?: number; body: string; error?: string; written: number } = { body: '', written: 0 };
    const req = request(
      { host: '127.0.0.1', port, method: 'POST', path: '/', headers: { 'content-type': 'application/octet-stream' } },
      (res: IncomingMessage) => {
        result.status = res.statusCode;
        res.on('data', (c: Buffer) => (result.body += c.toString()));
      },
    );
    req.on('error', (error) => {
      result.error = (error as NodeJS.ErrnoException).code ?? error.message;
      resolve(result);
    });
    req.on('close', () => resolve(result));
    const chunk = Buffer.alloc(64 * 1024, 1);
    let sent = 0;
    const next = () => {
      if (req.destroyed) return;
      if (sent === chunks) return void req.end();
      sent++;
      result.written = sent;
      req.write(chunk);
      setTimeout(next, gapMs);
    };
    next();
  });
}

describe('lingerAfterEarlyAnswer', () => {
  const servers: Server[] = [];
  afterAll(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));

  it('reads and drops the rest of the body after an early answer, so a client still writing gets the answer, not a reset', async () => {
    const { server, port, received } = await earlyAnswering(10_000); // far beyond the ≈ 200 ms the upload takes, even on a loaded machine
    servers.push(server);
    const result = await slowUpload(port, 40, 5); // 2.5 MiB over ≈ 200 ms, most of it after the 413
    expect(result).toMatchObject({ status: 413, body: '{"message":"The request body is too large."}', written: 40 });
    expect(result.error).toBeUndefined();
    expect(received()).toBe(40 * 64 * 1024);
  });

  it('cuts the connection when the rest of the body takes longer than the bound', async () => {
    const { server, port, received } = await earlyAnswering(150);
    servers.push(server);
    const started = Date.now();
    const result = await slowUpload(port, 1000, 20); // would take 20 s
    expect(result.status).toBe(413);
    expect(result.written).toBeLessThan(1000);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(received()).toBeLessThan(1000 * 64 * 1024);
  });
});
