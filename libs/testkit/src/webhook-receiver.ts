import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

export interface ReceivedCall {
  headers: IncomingHttpHeaders;
  /** The raw body, as signed. */
  body: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
  /** When the whole request had arrived (Date.now()). */
  at: number;
}

/** How to answer the n-th call (0-based): a status (with headers, after a delay), or 'hang' to never answer. */
export type Answer = { status: number; headers?: Record<string, string>; delayMs?: number; body?: string } | 'hang';

export interface WebhookReceiver {
  url: string;
  calls: ReceivedCall[];
  /** Requests still waiting for an answer. */
  readonly hanging: number;
  /** Requests whose sender gave up (closed the connection) before an answer. */
  readonly abandoned: number;
  answer(fn: (call: ReceivedCall, n: number) => Answer): void;
  /** Resolves once at least `n` calls arrived (or `match` calls satisfy `predicate`). */
  waitFor(n: number, predicate?: (call: ReceivedCall) => boolean): Promise<ReceivedCall[]>;
  close(): Promise<void>;
}

/**
 * A real HTTP server on loopback standing in for a client's webhook receiver: it records
 * every call and answers as told (200 by default). With `tls` it speaks https.
 */
export async function startWebhookReceiver(options: { tls?: { key: string; cert: string } } = {}): Promise<WebhookReceiver> {
  const calls: ReceivedCall[] = [];
  const open = new Set<ServerResponse>();
  let abandoned = 0;
  let decide: (call: ReceivedCall, n: number) => Answer = () => ({ status: 200 });
  const waiters: Array<() => void> = [];
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const call = { headers: req.headers, body, json, at: Date.now() };
      const answer = decide(call, calls.length);
      calls.push(call);
      waiters.splice(0).forEach((wake) => wake());
      if (answer === 'hang') {
        open.add(res);
        res.on('close', () => {
          if (open.delete(res)) abandoned++;
        });
        return;
      }
      const reply = () =>
        res
          .writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers })
          .end(answer.body ?? (answer.status >= 300 ? `status ${answer.status}` : 'ok'));
      if (answer.delayMs) setTimeout(reply, answer.delayMs);
      else reply();
    });
  };
  const server = options.tls ? createHttpsServer(options.tls, handle) : createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}/hook`,
    calls,
    get hanging() {
      return open.size;
    },
    get abandoned() {
      return abandoned;
    },
    answer: (fn) => (decide = fn),
    waitFor: async (n, predicate = () => true) => {
      while (calls.filter(predicate).length < n) await new Promise<void>((resolve) => waiters.push(resolve));
      return calls.filter(predicate);
    },
    close: async () => {
      for (const res of open) res.destroy();
      open.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
