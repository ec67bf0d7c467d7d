import type { Server } from 'node:http';

/** A change as the feed answers it. */
export interface Change {
  cursor: string;
  kind: string;
  collection: string;
  key: string;
  id: string;
  version: number;
  occurred_at: string;
  document?: { key: string; version: number; data: Record<string, unknown>; deleted_at: string | null };
}

/** The base URL of a test app's server, listening on a free loopback port (fetch needs a real port). */
export async function listeningBase(http: Server): Promise<string> {
  if (!http.listening) await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const address = http.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

/** Reads an event stream with Node's fetch: its events as they come, and how it ended. */
export async function openStream(url: string, headers: Record<string, string>) {
  const controller = new AbortController();
  const res = await fetch(url, { headers: { Accept: 'text/event-stream', ...headers }, signal: controller.signal });
  const events: Array<{ id?: string; event?: string; data: string }> = [];
  const comments: string[] = [];
  let ended = false;
  const done = (async () => {
    if (!res.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let at: number;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          const event: { id?: string; event?: string; data: string } = { data: '' };
          let any = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line);
            else if (line.startsWith('id: ')) event.id = line.slice(4);
            else if (line.startsWith('event: ')) event.event = line.slice(7);
            else if (line.startsWith('data: ')) {
              event.data = line.slice(6);
              any = true;
            }
          }
          if (any) events.push(event);
        }
      }
    } catch {
      // aborted by the test
    }
    ended = true;
  })();
  return {
    status: res.status,
    headers: res.headers,
    events,
    comments,
    changes: () => events.filter((e) => e.event === 'change').map((e) => JSON.parse(e.data) as Change),
    get ended() {
      return ended;
    },
    close: async () => {
      controller.abort();
      await done;
    },
    done,
  };
}
