/**
 * The loopback push provider of bench/push.ts, in its own process: FCM HTTP v1's
 * `messages:send` and Google's token endpoint on node:http. Every send is answered 200 at
 * once; for each it records the wall-clock arrival time (comparable across processes) and
 * the device (`message.token`, `b-<n>` in the bench). The app and the floor both send here.
 * IPC: {ready, port} once listening; {cmd:'count'} → {count, unique}; {cmd:'take'} →
 * {devices, times} and forgets them; {cmd:'cpu'} → {cpuMs}.
 *
 *   node -r ./bench/register.js bench/push/fake-fcm.ts
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { serveRpc } from '../lib/harness';

let devices: string[] = [];
let times: number[] = [];
let seen = new Set<string>();
let sends = 0;

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    if (req.url === '/token') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: 'ya29.bench', expires_in: 3600, token_type: 'Bearer' }));
      return;
    }
    const at = performance.timeOrigin + performance.now();
    let device = '?';
    try {
      device = String(JSON.parse(Buffer.concat(chunks).toString('utf8')).message.token);
    } catch {
      // counted as '?'
    }
    devices.push(device);
    times.push(at);
    seen.add(device);
    const body = JSON.stringify({ name: `projects/bench/messages/${++sends}` });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 120_000;
server.headersTimeout = 125_000;

serveRpc((msg) => {
  switch (msg.cmd) {
    case 'count':
      return { count: devices.length, unique: seen.size };
    case 'take': {
      const taken = { devices, times };
      devices = [];
      times = [];
      seen = new Set();
      return taken;
    }
    case 'cpu': {
      const use = process.cpuUsage();
      return { cpuMs: (use.user + use.system) / 1000 };
    }
    default:
      throw new Error(`unknown command ${String(msg.cmd)}`);
  }
});

server.listen(0, '127.0.0.1', () => process.send!({ ready: true, port: (server.address() as AddressInfo).port }));
