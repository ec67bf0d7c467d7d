import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';

export interface TrickleResult {
  /** The answer's status line's code (0 when none came). */
  status: number;
  /** The answer's body. */
  body: string;
  /** Whether the answer said `Connection: close`. */
  closeHeader: boolean;
  /** From the headers' end to the server closing the connection, in ms. */
  closedAfterMs: number;
  /** Body bytes written before the server closed the connection. */
  sent: number;
}

/**
 * Sends a request whose body announces `length` bytes and trickles them one per `everyMs`,
 * as a slow client would, until the server closes the connection; resolves with the answer.
 * The server is made to listen on a free loopback port when it is not listening yet.
 */
export async function trickleBody(
  server: Server,
  request: { method: string; path: string; headers: Record<string, string>; length?: number; everyMs?: number },
): Promise<TrickleResult> {
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const length = request.length ?? 1000;
  const headers = { ...request.headers, host: `127.0.0.1:${port}`, 'content-type': 'application/json', 'content-length': String(length) };
  const head = `${request.method} ${request.path} HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let sent = 0;
    let started = 0;
    let timer: NodeJS.Timeout | undefined;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', () => undefined); // a reset after the answer is how some servers close
    socket.once('connect', () => {
      socket.write(head);
      started = Date.now();
      // The body opens a JSON array and never finishes it: a slow client, not a malformed one.
      timer = setInterval(() => {
        if (socket.destroyed || sent >= length - 1) return;
        socket.write(sent === 0 ? '[' : '0');
        sent++;
      }, request.everyMs ?? 1000);
    });
    socket.once('close', () => {
      clearInterval(timer);
      const [headPart, ...rest] = answer.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(headPart ?? '')?.[1] ?? 0);
      if (!started) return reject(new Error('The connection closed before the request was sent.'));
      resolve({ status, body: rest.join('\r\n\r\n'), closeHeader: /\r\nconnection: close/i.test(headPart ?? ''), closedAfterMs: Date.now() - started, sent });
    });
  });
}
