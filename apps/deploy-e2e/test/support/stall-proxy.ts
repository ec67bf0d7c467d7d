import { connect, createServer, type Socket } from 'node:net';

/** A loopback TCP proxy in front of PostgreSQL that can stop moving bytes, as a stalled server or network does. */
export interface StallProxy {
  /** `target` with the proxy's host and port. */
  url: string;
  /** From now on no byte moves either way, on open connections and new ones (their connects never complete). */
  freeze(): void;
  /** Delivers what was held, in order, and forwards again. */
  resume(): void;
  close(): Promise<void>;
}

export async function stallProxy(target: string): Promise<StallProxy> {
  const to = new URL(target);
  let frozen = false;
  /** What each open direction holds while frozen. */
  const held: Array<{ into: Socket; chunks: Buffer[] }> = [];
  const sockets = new Set<Socket>();

  const pipe = (from: Socket, into: Socket) => {
    const queue = { into, chunks: [] as Buffer[] };
    held.push(queue);
    from.on('data', (chunk: Buffer) => (frozen ? queue.chunks.push(chunk) : into.write(chunk)));
    from.on('close', () => {
      held.splice(held.indexOf(queue), 1);
      into.destroy();
    });
    from.on('error', () => into.destroy());
  };

  const server = createServer((client) => {
    const upstream = connect(Number(to.port || 5432), to.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.once('close', () => sockets.delete(s));
    }
    pipe(client, upstream);
    pipe(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as { port: number }).port);

  return {
    url: url.toString(),
    freeze: () => {
      frozen = true;
    },
    resume: () => {
      frozen = false;
      for (const queue of held) {
        for (const chunk of queue.chunks.splice(0)) if (!queue.into.destroyed) queue.into.write(chunk);
      }
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
