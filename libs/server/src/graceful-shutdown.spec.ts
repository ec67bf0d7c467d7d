import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { drainOnDemand, FRESH_CONNECTION_GRACE_MS } from './graceful-shutdown';

/** An HTTP server on loopback answering 200 after `delayMs`, with its drain. */
async function server(delayMs = 0): Promise<{ server: Server; port: number; drain: () => Promise<void> }> {
  const s = createServer((_req, res) => setTimeout(() => res.end('ok'), delayMs));
  const drain = drainOnDemand(s);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return { server: s, port: (s.address() as AddressInfo).port, drain };
}

/** A raw connection, resolved once the server has accepted it. */
async function open(s: Server, port: number): Promise<Socket> {
  const accepted = new Promise((resolve) => s.once('connection', resolve));
  const socket = connect(port, '127.0.0.1');
  await accepted;
  return socket;
}

/** Everything the server sends until it closes the connection. */
const untilClosed = (socket: Socket) =>
  new Promise<string>((resolve) => {
    let text = '';
    socket.on('data', (c) => (text += String(c)));
    socket.on('error', () => {});
    socket.on('close', () => resolve(text));
  });

const GET = 'GET / HTTP/1.1\r\nHost: x\r\n\r\n';

describe('drainOnDemand', () => {
  it('answers a request on a connection opened just before the drain, closing the connection after it', async () => {
    const { server: s, port, drain } = await server();
    const socket = await open(s, port);
    const answer = untilClosed(socket);
    const drained = drain();
    await new Promise((resolve) => setTimeout(resolve, 200));
    socket.write(GET);
    expect(await answer).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: close\r\n[\s\S]*ok$/);
    await drained;
  });

  it('refuses new connections once draining, and finishes the requests in flight', async () => {
    const { server: s, port, drain } = await server(300);
    const busy = await open(s, port);
    const answer = untilClosed(busy);
    busy.write(GET);
    await new Promise((resolve) => s.once('request', resolve));
    const drained = drain();
    const refused = await new Promise<string>((resolve) => connect(port, '127.0.0.1').once('error', (e: NodeJS.ErrnoException) => resolve(String(e.code))));
    expect(refused).toBe('ECONNREFUSED');
    expect(await answer).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*ok$/);
    await drained;
  });

  it('closes a keep-alive connection idle after its request at once, and a silent new one after the grace', async () => {
    const { server: s, port, drain } = await server();
    const idle = await open(s, port);
    const idleClosed = untilClosed(idle);
    idle.write(GET);
    await new Promise((resolve) => idle.once('data', resolve));
    const silent = await open(s, port);
    const silentClosed = untilClosed(silent);
    const started = Date.now();
    const drained = drain();
    await idleClosed;
    expect(Date.now() - started).toBeLessThan(FRESH_CONNECTION_GRACE_MS);
    expect(await silentClosed).toBe('');
    expect(Date.now() - started).toBeGreaterThanOrEqual(FRESH_CONNECTION_GRACE_MS);
    await drained;
  });
});
