/**
 * The webhook receiver of bench/webhooks.ts, in its own process: node:http on 127.0.0.1,
 * answers every request 200 with an empty body (keep-alive), and records for each one the
 * wall-clock arrival time (performance.timeOrigin + performance.now(), comparable across
 * processes) and the document key (`JSON.parse(body).data.key`). The parent asks over IPC:
 *   {cmd:'count'}  → {count, unique}
 *   {cmd:'take'}   → {keys, times, bytes, bad, sample} and forgets them (the next phase starts clean)
 *   {cmd:'cpu'}    → {cpuMs} (user + system of this process)
 * and is told the port with {ready: true, port} once listening.
 *
 *   node -r ./bench/register.js bench/webhooks/receiver.ts
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { serveRpc } from '../lib/harness';

let keys: Array<string | null> = [];
let times: number[] = [];
let seen = new Set<string>();
let bytes = 0;
let bad = 0;
let sample: { headers: IncomingHttpHeaders; body: string } | null = null;

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const at = performance.timeOrigin + performance.now();
    const body = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8');
    let key: string | null = null;
    try {
      key = String(JSON.parse(body).data.key);
    } catch {
      bad++;
    }
    keys.push(key);
    times.push(at);
    if (key !== null) seen.add(key);
    bytes += Buffer.byteLength(body);
    if (!sample) sample = { headers: req.headers, body };
    res.writeHead(200, { 'content-length': '0' });
    res.end();
  });
});
// Keep connections across phases (Node's default is 5 s).
server.keepAliveTimeout = 120_000;
server.headersTimeout = 125_000;

serveRpc((msg) => {
  switch (msg.cmd) {
    case 'count':
      return { count: keys.length, unique: seen.size };
    case 'take': {
      const out = { keys, times, bytes, bad, sample };
      keys = [];
      times = [];
      seen = new Set();
      bytes = 0;
      bad = 0;
      sample = null;
      return out;
    }
    case 'cpu': {
      const u = process.cpuUsage();
      return { cpuMs: (u.user + u.system) / 1000 };
    }
    default:
      throw new Error(`unknown command ${String(msg.cmd)}`);
  }
});

server.listen(0, '127.0.0.1', () => {
  process.send!({ ready: true, port: (server.address() as AddressInfo).port });
});

process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
