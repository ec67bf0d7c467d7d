import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveRpc, wallMs } from './harness';

/**
 * The loopback peer the services and their floors send to, in its own process, answering at once:
 *   POST /token, POST …:send   Google's token endpoint and FCM v1's messages:send (push bench);
 *   POST …/messages, …/media   the chat network's Graph API send and upload (gateway bench);
 *   anything else              a webhook receiver: 200 with an empty body (webhooks bench).
 * For pushes and webhooks it records each arrival's wall-clock time and its key (FCM's
 * `message.token`, a webhook body's `data.key`). IPC: {cmd:'count'} → {count, unique};
 * {cmd:'take'} → {keys, times, sample} and forgets them.
 */
let keys: string[] = [];
let times: number[] = [];
let seen = new Set<string>();
let sample: { headers: IncomingHttpHeaders; body: string } | null = null;
let n = 0;

function record(key: string, at: number): void {
  keys.push(key);
  times.push(at);
  seen.add(key);
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  const url = req.url ?? '';
  const media = url.endsWith('/media');
  req.on('data', (chunk: Buffer) => media || chunks.push(chunk));
  req.on('end', () => {
    const at = wallMs();
    const body = Buffer.concat(chunks).toString('utf8');
    n++;
    const json = (status: number, text: string) =>
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
    if (url === '/token') return json(200, JSON.stringify({ access_token: 'ya29.bench', expires_in: 3600, token_type: 'Bearer' }));
    if (media) return json(200, `{"id":"9${n}"}`);
    if (url.endsWith(':send')) {
      record(String(JSON.parse(body).message.token), at);
      return json(200, JSON.stringify({ name: `projects/bench/messages/${n}` }));
    }
    if (url.endsWith('/messages')) {
      const to = /"to":"([^"]*)"/.exec(body)?.[1] ?? '';
      return json(200, `{"messaging_product":"whatsapp","contacts":[{"input":"${to}","wa_id":"${to}"}],"messages":[{"id":"wamid.BENCH${n}"}]}`);
    }
    record(String(JSON.parse(body).data.key), at);
    sample ??= { headers: req.headers, body };
    res.writeHead(200, { 'content-length': '0' }).end();
  });
});
// Keep connections across phases (Node's default is 5 s).
server.keepAliveTimeout = 120_000;
server.headersTimeout = 125_000;

server.listen(0, '127.0.0.1', () =>
  serveRpc(
    (msg) => {
      if (msg.cmd === 'count') return { count: keys.length, unique: seen.size };
      const taken = { keys, times, sample };
      [keys, times, seen, sample] = [[], [], new Set(), null];
      return taken;
    },
    { port: (server.address() as AddressInfo).port },
  ),
);
