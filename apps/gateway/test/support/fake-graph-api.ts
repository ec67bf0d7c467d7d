import { randomInt, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GraphCall {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export type GraphAnswer = { status: number; body?: unknown; headers?: Record<string, string> } | 'hang';

/**
 * A fake of the network's Graph API on loopback (real HTTP): records every call, answers
 * as told; by default like the Cloud API does for sends, uploads, templates and profiles.
 */
export async function startFakeGraphApi() {
  const calls: GraphCall[] = [];
  const hanging = new Set<ServerResponse>();
  let decide: (call: GraphCall) => GraphAnswer | undefined = () => undefined;
  let next = 0;
  // Media and template ids unique across fakes: test files share a worker's database, and the network's ids are unique.
  const run = randomInt(1e4, 9e4);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const call = { method: req.method!, path: req.url!, headers: req.headers, body: Buffer.concat(chunks) };
      calls.push(call);
      const answer = decide(call) ?? defaultAnswer(call, ++next, run);
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      res
        .writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers })
        .end(answer.body === undefined ? '' : Buffer.isBuffer(answer.body) ? answer.body : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    answer(fn: (call: GraphCall) => GraphAnswer | undefined) {
      decide = fn;
    },
    reset() {
      calls.length = 0;
      decide = () => undefined;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type FakeGraphApi = Awaited<ReturnType<typeof startFakeGraphApi>>;

function defaultAnswer(call: GraphCall, n: number, run: number): GraphAnswer {
  if (call.path.endsWith('/messages')) {
    const body = JSON.parse(call.body.toString('utf8')) as { to?: string; status?: string };
    if (body.status === 'read') return { status: 200, body: { success: true } };
    return {
      status: 200,
      body: {
        messaging_product: 'whatsapp',
        contacts: [{ input: body.to, wa_id: String(body.to).replace(/\D/g, '') }],
        messages: [{ id: `wamid.FAKE${n}.${randomUUID()}` }],
      },
    };
  }
  if (call.path.endsWith('/media')) return { status: 200, body: { id: `9000${run}${n}` } };
  if (call.path.endsWith('/message_templates')) return { status: 200, body: { id: `8000${run}${n}`, status: 'PENDING', category: 'MARKETING' } };
  if (call.path.includes('/whatsapp_business_profile')) {
    return call.method === 'GET'
      ? { status: 200, body: { data: [{ messaging_product: 'whatsapp', about: 'From the network', vertical: 'RETAIL', websites: [] }] } }
      : { status: 200, body: { success: true } };
  }
  return { status: 404, body: { error: { message: 'Unknown path', type: 'GraphMethodException', code: 100 } } };
}
