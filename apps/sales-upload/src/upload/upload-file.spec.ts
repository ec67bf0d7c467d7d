import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parseUploadArgs } from './upload-args';
import { uploadFile, UploadInterruptedError, type PartResult } from './upload-file';

interface Seen {
  method: string;
  id: string;
  /** The state file as it was when the request arrived. */
  state: { parts: Array<{ ingestion_id?: string; outcome?: string }> };
  headers: http.IncomingHttpHeaders;
  /** The body as it arrived (POST). */
  body: Buffer[];
}

/** A stand-in for the sales endpoints: `holdPosts` decides each upload's answer (or holds it); `ingestions` answers GET and DELETE. */
function fakeService(statePath: string) {
  const seen: Seen[] = [];
  const ingestions = new Map<string, { status: string; stage: string | null; received: number }>();
  const complete = (id: string, res: http.ServerResponse) => {
    Object.assign(ingestions.get(id)!, { status: 'completed', stage: null });
    answer(res, 201, summary(id, 'completed'));
  };
  let onPost: (id: string, res: http.ServerResponse) => void = complete;
  const onDelete = (id: string, res: http.ServerResponse) => {
    const known = ingestions.get(id);
    if (!known) return answer(res, 404, { code: 'NOT_FOUND' });
    if (known.status !== 'running') return answer(res, 409, { code: 'SALES_INGESTION_ENDED', ingestion_id: id, status: known.status });
    known.status = 'cancelled';
    answer(res, 202, summary(id, 'cancelled'));
  };
  const summary = (id: string, status: string) => ({
    ingestion_id: id,
    status,
    stage: null,
    received: 2,
    inserted: 2,
    updated: 0,
    rejected: 0,
    error_count: 0,
    duration_ms: 1,
  });
  const answer = (res: http.ServerResponse, status: number, body: unknown) => {
    if (res.headersSent || res.destroyed) return;
    res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    const id = req.method === 'POST' ? String(req.headers['x-ingestion-id']) : req.url!.split('/').pop()!;
    const body: Buffer[] = [];
    seen.push({ method: req.method!, id, state: JSON.parse(readFileSync(statePath, 'utf8')), headers: req.headers, body });
    if (req.method === 'POST') {
      ingestions.set(id, { status: 'running', stage: 'receiving', received: 0 });
      req.on('data', (chunk: Buffer) => body.push(chunk));
      req.on('end', () => onPost(id, res));
      return;
    }
    if (req.method === 'DELETE') return onDelete(id, res);
    const known = ingestions.get(id);
    if (!known) return answer(res, 404, { code: 'NOT_FOUND' });
    answer(res, 200, { ...summary(id, known.status), stage: known.stage, received: known.received });
  });
  return {
    seen,
    ingestions,
    server,
    holdPosts(hold: (id: string, res: http.ServerResponse) => void) {
      onPost = hold;
    },
    complete,
    async listen() {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
  };
}

describe('uploadFile', () => {
  let dir: string;
  let file: string;
  let statePath: string;
  let service: ReturnType<typeof fakeService>;
  let base: string;
  let stderr: string;
  const err = { isTTY: false, write: (text: string) => ((stderr += text), true) } as unknown as NodeJS.WriteStream;
  const upload = (controls: { signal?: AbortSignal; onPart?: (part: PartResult) => void } = {}) =>
    uploadFile(parseUploadArgs(['--file', file, '--url', base, '--api-key', 'k', '--part-bytes', '40', '--retries', '0']), { pollMs: 10, err, ...controls });
  const saved = () => JSON.parse(readFileSync(statePath, 'utf8')) as Seen['state'];
  const until = async (condition: () => boolean) => {
    while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'upload-file-'));
    file = join(dir, 'sales.csv');
    statePath = `${file}.upload-state.json`;
    // Three parts of at most 40 bytes: the header and two records each.
    writeFileSync(file, `Head;Line\n${['r1;aaaaaaaa', 'r2;bbbbbbbb', 'r3;cccccccc', 'r4;dddddddd', 'r5;eeeeeeee'].join('\n')}\n`);
    stderr = '';
    service = fakeService(statePath);
    base = await service.listen();
  });
  afterEach(async () => {
    service.server.closeAllConnections();
    await new Promise((resolve) => service.server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('with --gzip sends each part compressed on its own, chunked, and resumes the same parts', async () => {
    const args = ['--file', file, '--url', base, '--api-key', 'k', '--part-bytes', '40', '--retries', '0'];
    const plain = await uploadFile(parseUploadArgs(args), { pollMs: 10, err });
    const sent = service.seen.filter((s) => s.method === 'POST');
    // Again, compressed: the state says every part is stored, so nothing goes.
    await uploadFile(parseUploadArgs([...args, '--gzip']), { pollMs: 10, err });
    expect(service.seen.filter((s) => s.method === 'POST')).toHaveLength(sent.length);
    rmSync(statePath);
    const zipped = await uploadFile(parseUploadArgs([...args, '--gzip']), { pollMs: 10, err });
    const posts = service.seen.filter((s) => s.method === 'POST').slice(sent.length);
    expect(posts).toHaveLength(3);
    for (const [i, post] of posts.entries()) {
      expect(post.headers['content-encoding']).toBe('gzip');
      expect(post.headers['content-length']).toBeUndefined();
      expect(post.headers['transfer-encoding']).toBe('chunked');
      expect(gunzipSync(Buffer.concat(post.body))).toEqual(Buffer.concat(sent[i].body));
      expect(sent[i].headers['content-encoding']).toBeUndefined();
    }
    expect(zipped.totals).toEqual(plain.totals);
    // The progress counts the file's bytes, not the compressed ones.
    expect(stderr).toMatch(/100(\.0)?%/);
  });

  it('records each part’s ingestion id before sending it, and its outcome once answered', async () => {
    const { parts } = await upload();
    const posts = service.seen.filter((s) => s.method === 'POST');
    expect(posts).toHaveLength(3);
    for (const [i, post] of posts.entries()) {
      expect(post.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(post.state.parts[i]).toEqual(expect.objectContaining({ ingestion_id: post.id }));
      expect(post.state.parts[i].outcome).toBeUndefined();
    }
    expect(saved().parts.map((p) => [p.ingestion_id, p.outcome])).toEqual(posts.map((p) => [p.id, 'completed']));
    expect(parts.map((p) => p.ingestion_id)).toEqual(posts.map((p) => p.id));
  });

  it('shows the service’s stage while it stores a part, without an ETA of 0s', async () => {
    service.holdPosts((id, res) => {
      Object.assign(service.ingestions.get(id)!, { stage: 'merging', received: 2 });
      void until(() => stderr.includes('server: merging')).then(() => service.complete(id, res));
    });
    await upload();
    const merging = stderr.split('\n').filter((line) => line.includes('server: merging (2 records)'));
    expect(merging.length).toBeGreaterThan(0);
    expect(merging.every((line) => !line.includes('ETA'))).toBe(true);
  });

  it('on Ctrl-C cancels the part under way on the service and records it cancelled', async () => {
    const controller = new AbortController();
    service.holdPosts((id, res) => {
      if (service.seen.filter((s) => s.method === 'POST').length < 2) return service.complete(id, res);
      controller.abort();
    });
    const error = await upload({ signal: controller.signal }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(UploadInterruptedError);
    const second = service.seen.filter((s) => s.method === 'POST')[1].id;
    expect((error as Error).message).toMatch(`part 2 of 3 was cancelled on the service (ingestion ${second}), nothing of it was kept; 1 of 3 parts are stored`);
    expect(service.seen.filter((s) => s.method === 'DELETE').map((s) => s.id)).toEqual([second]);
    expect(service.ingestions.get(second)!.status).toBe('cancelled');
    expect(saved().parts.map((p) => p.outcome)).toEqual(['completed', 'cancelled', undefined]);
  });

  it('on Ctrl-C after the service finished the part, says so and records it done', async () => {
    const controller = new AbortController();
    service.holdPosts((id) => {
      service.ingestions.get(id)!.status = 'completed';
      controller.abort();
    });
    const error = await upload({ signal: controller.signal }).catch((e: Error) => e);
    expect((error as Error).message).toMatch(
      /^Interrupted, but part 1 of 3 had already completed on the service .* and is recorded as done; 1 of 3 parts are stored/,
    );
    expect(saved().parts.map((p) => p.outcome)).toEqual(['completed', undefined, undefined]);
  });

  it('asks the service about a part whose outcome is unknown before sending it again', async () => {
    await upload();
    const first = saved();
    // The first run died after sending parts 2 and 3, before learning their outcome; part 3 never reached the service.
    delete first.parts[1].outcome;
    delete first.parts[2].outcome;
    service.ingestions.delete(first.parts[2].ingestion_id!);
    writeFileSync(statePath, JSON.stringify({ ...JSON.parse(readFileSync(statePath, 'utf8')), parts: first.parts }));
    service.seen.length = 0;
    stderr = '';
    const { parts } = await upload();
    expect(stderr).toMatch(/^resuming: 1 of 3 parts done\n/);
    expect(parts.map((p) => p.skipped)).toEqual(['already confirmed', 'already confirmed', undefined]);
    // Only part 3 went again, under the id it was recorded with.
    expect(service.seen.filter((s) => s.method === 'POST').map((s) => s.id)).toEqual([first.parts[2].ingestion_id]);
    expect(stderr).not.toMatch(/\b0 rows\/s/);
  });

  it('hands over each part’s result as it finishes, before the next part is sent', async () => {
    const postsWhenHeard: number[] = [];
    const { parts } = await upload({ onPart: () => postsWhenHeard.push(service.seen.filter((s) => s.method === 'POST').length) });
    expect(parts).toHaveLength(3);
    expect(postsWhenHeard).toEqual([1, 2, 3]);
  });

  it('sends a large part without piling up listeners on the request (no MaxListenersExceededWarning)', async () => {
    writeFileSync(file, `Head;Line\n${'r;aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n'.repeat(100_000)}`);
    // Node warns (MaxListenersExceededWarning) past 10 listeners of one event: the most the request ever held.
    let most = 0;
    const request = jest.spyOn(http, 'request').mockImplementation(((...args: Parameters<typeof http.request>) => {
      // As http.request does: the constructor takes (url, options, callback), which its typings leave out.
      const req = new (http.ClientRequest as unknown as new (...a: unknown[]) => http.ClientRequest)(...args);
      for (const method of ['on', 'once'] as const) {
        const original = req[method].bind(req);
        req[method] = ((event: string, listener: (...a: unknown[]) => void) => {
          const result = original(event, listener);
          most = Math.max(most, req.listenerCount(event));
          return result;
        }) as typeof req.on;
      }
      return req;
    }) as typeof http.request);
    try {
      await uploadFile(parseUploadArgs(['--file', file, '--url', base, '--api-key', 'k', '--retries', '0']), { pollMs: 10, err });
    } finally {
      request.mockRestore();
    }
    expect(most).toBeLessThanOrEqual(10);
  });

  it('shows no transfer rate for parts that were already stored', async () => {
    await upload();
    stderr = '';
    const { parts } = await upload();
    expect(parts.every((p) => p.skipped === 'already confirmed')).toBe(true);
    expect(stderr).toMatch(/^resuming: 3 of 3 parts done\n/);
    expect(stderr).toMatch(/100\.0% /);
    expect(stderr).not.toMatch(/rows\/s|MB\/s/);
  });
});
