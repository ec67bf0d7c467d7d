import { Sql } from '@app/database';
import fc from 'fast-check';
import { DRAINING_EVENT } from '@app/server';
import { eventually } from '@app/testkit';
import { ChangeSequencer } from '../src/changes/change-sequencer.service';
import { ChangeStreams } from '../src/changes/change-streams.service';
import { DocumentsRepository } from '../src/documents/documents.repository';
import { listeningBase, openStream, type Change } from './support/change-stream';
import { docBody, request, startDocstore, type Client, type Docstore, useDocstore } from './support/docstore-test';

describe('change feed (JSON pages)', () => {
  let ds: Docstore;
  let c: Client;
  useDocstore({ app: (d) => (ds = d), client: (x) => (c = x) });

  const changesUrl = (client: Client) => `/api/v1/client/${client.id}/changes`;
  const feed = (query: Record<string, string> = {}, client = c) => request(ds.http).get(changesUrl(client)).query(query).set(client.auth);
  const create = (key: string, data: Record<string, unknown>, path = c.doc(), client = c) =>
    request(ds.http)
      .post(`${path}/${key}`)
      .set(client.auth)
      .send(docBody(key, data, {}, ...(path.split('/').filter((_, i) => [5, 7, 9].includes(i)) as [string, string, string])))
      .expect(201);
  const put = (key: string, data: Record<string, unknown>) => request(ds.http).put(`${c.doc()}/${key}`).set(c.auth).send(docBody(key, data)).expect(200);
  /** Every change of the client (after `since`), once the writes so far have their cursors. */
  const all = async (query: Record<string, string> = {}, client = c): Promise<{ changes: Change[]; last_cursor: string }> => {
    await ds.get(ChangeSequencer).settle();
    return (await feed({ limit: '1000', ...query }, client).expect(200)).body;
  };

  it('lists every write once, oldest first, with its kind: create, update, bulk (one per document), delete, restore, revive', async () => {
    await create('a', { n: 1 });
    await put('a', { n: 2 });
    await request(ds.http)
      .post(`${c.doc()}/bulk`)
      .set(c.auth)
      .send({
        documents: [
          { key: 'a', data: { n: 3 } },
          { key: 'b', data: { n: 1 } },
        ],
      })
      .expect(200);
    await request(ds.http).delete(`${c.doc()}/b`).set(c.auth).expect(200);
    const history = (await request(ds.http).get(`${c.doc()}/a/history`).set(c.auth).expect(200)).body.data;
    await request(ds.http).post(`${c.doc()}/a/history/${history[2].id}/restore`).set(c.auth).expect(200);
    await create('b', { n: 9 });

    const { changes, last_cursor } = await all();
    expect(changes.map((ch) => `${ch.key} v${ch.version} ${ch.kind}`)).toEqual([
      'a v1 created',
      'a v2 updated',
      'a v3 updated',
      'b v1 created',
      'b v1 deleted',
      'a v4 restored',
      'b v2 created',
    ]);
    const cursors = changes.map((ch) => BigInt(ch.cursor));
    expect([...cursors].sort((x, y) => (x < y ? -1 : 1))).toEqual(cursors);
    expect(last_cursor).toBe(changes[changes.length - 1].cursor);
    expect(changes[0]).toMatchObject({ collection: 'production/shop/product', document: { key: 'a', version: 1, data: { n: 1 }, deleted_at: null } });
    expect(changes[4].document!.deleted_at).not.toBeNull();
    expect(changes[5].document!.data).toEqual({ n: 1 });
    expect(changes[0].occurred_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  it('pages with limit and since, leaves documents out with include_docs=false, and answers nothing new after since=now', async () => {
    for (const key of ['p1', 'p2', 'p3']) await create(key, { key });
    await ds.get(ChangeSequencer).settle();
    const first = (await feed({ limit: '2' }).expect(200)).body;
    expect(first.changes.map((ch: Change) => ch.key)).toEqual(['p1', 'p2']);
    const second = (await feed({ since: first.last_cursor, include_docs: 'false' }).expect(200)).body;
    expect(second.changes.map((ch: Change) => ch.key)).toEqual(['p3']);
    expect(second.changes[0].document).toBeUndefined();
    const now = (await feed({ since: 'now' }).expect(200)).body;
    expect(now.changes).toEqual([]);
    expect(BigInt(now.last_cursor)).toBeGreaterThanOrEqual(BigInt(second.last_cursor));
    await create('p4', {});
    expect((await all({ since: now.last_cursor })).changes.map((ch) => ch.key)).toEqual(['p4']);
  });

  it('filters by collection (exact or prefix) and by the list field filters on the new version', async () => {
    await create('x', { price: 5 }, c.doc('production', 'shop', 'product'));
    await create('y', { price: 50 }, c.doc('production', 'shop', 'order'));
    await create('z', { price: 500 }, c.doc('production', 'blog', 'post'));
    await create('w', { price: 7 }, c.doc('staging', 'shop', 'product'));
    const keys = async (query: Record<string, string>) => (await all(query)).changes.map((ch) => ch.key);
    expect(await keys({ collection: 'production/shop/product' })).toEqual(['x']);
    expect(await keys({ collection: 'production/shop' })).toEqual(['x', 'y']);
    expect(await keys({ collection: 'production' })).toEqual(['x', 'y', 'z']);
    expect(await keys({ 'filter[price_gte]': '50' })).toEqual(['y', 'z']);
    expect(await keys({ collection: 'production', 'filter[price]': '5' })).toEqual(['x']);
  });

  it('never shows a rolled-back write', async () => {
    await create('kept', {});
    const sql = ds.get(Sql);
    await expect(
      sql.transaction(async (tx) => {
        await tx.rows(
          `INSERT INTO docstore.changes (client_id, environment, context, type, key, document_id, version, kind, data, document)
           VALUES ($1, 'production', 'shop', 'product', 'ghost', gen_random_uuid(), 1, 'created', '{}', '{}')`,
          [c.id],
        );
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    // A write refused by the database (a second create of a live key) leaves nothing either.
    await request(ds.http).post(`${c.doc()}/kept`).set(c.auth).send(docBody('kept', {})).expect(409);
    expect((await all()).changes.map((ch) => ch.key)).toEqual(['kept']);
  });

  it('shows a token limited by rules only its areas, and nothing of another client', async () => {
    await create('in', {}, c.doc('production', 'shop', 'product'));
    await create('out', {}, c.doc('production', 'blog', 'post'));
    const other = await ds.newClient();
    await create('theirs', {}, other.doc(), other);
    const limited = await ds.mintToken(c.id, {
      permissions: [],
      document_rules: [{ environment: 'production', context: 'shop', permissions: ['document:read'] }],
    });
    const asLimited = { ...c, auth: { Authorization: `Bearer ${limited}` } };
    expect((await all({}, asLimited)).changes.map((ch) => ch.key)).toEqual(['in']);
    expect((await all()).changes.map((ch) => ch.key)).toEqual(['in', 'out']);
    expect((await all({}, other)).changes.map((ch) => ch.key)).toEqual(['theirs']);
    await request(ds.http).get(changesUrl(other)).set(c.auth).expect(403);
    const writer = await ds.mintToken(c.id, ['document:create']);
    await request(ds.http).get(changesUrl(c)).set('Authorization', `Bearer ${writer}`).expect(403);
  });

  it('answers 410 with the oldest cursor for a cursor past retention, and 422 for bad parameters', async () => {
    await create('old', {});
    const before = (await all()).changes[0].cursor;
    await create('new', {});
    const oldCursor = String(BigInt(before) - 1n);
    await ds.get(Sql).rows(`UPDATE docstore.changes SET created_at = now() - interval '8 days' WHERE client_id = $1 AND key = 'old'`, [c.id]);
    await ds.get(ChangeSequencer).expire();
    const gone = await feed({ since: oldCursor }).expect(410);
    expect(gone.body.oldest_cursor).toMatch(/^\d+$/);
    expect(BigInt(gone.body.oldest_cursor)).toBeGreaterThanOrEqual(BigInt(before));
    expect((await all({ since: gone.body.oldest_cursor })).changes.map((ch) => ch.key)).toEqual(['new']);
    expect((await all()).changes.map((ch) => ch.key)).toEqual(['new']);

    for (const [query, field] of [
      [{ since: 'yesterday' }, 'since'],
      [{ since: '99999999999999999999' }, 'since'],
      [{ since: '9223372036854775807' }, 'since'],
      [{ limit: '0' }, 'limit'],
      [{ limit: '1001' }, 'limit'],
      [{ collection: 'a/b/c/d' }, 'collection'],
      [{ collection: 'a//b' }, 'collection'],
      [{ include_docs: 'maybe' }, 'include_docs'],
      [{ feed: 'continuous' }, 'feed'],
      [{ timeout: '61' }, 'timeout'],
      [{ 'filter[price][between]': '1' }, 'filter[price][between]'],
    ] as const) {
      const res = await feed(query as Record<string, string>);
      expect([field, res.status, Object.keys(res.body.errors ?? {})]).toEqual([field, 422, expect.arrayContaining([field])]);
    }
    await request(ds.http)
      .get(`${changesUrl(c)}?limit=1&limit=2`)
      .set(c.auth)
      .expect(422);
  });

  it('long polls: waits for the next change, or answers empty when the timeout runs out', async () => {
    const start = (await feed({ since: 'now' }).expect(200)).body.last_cursor;
    const waiting = feed({ since: start, feed: 'longpoll', timeout: '20' });
    const answer = waiting.then((res) => res);
    await eventually(() => (ds.get(ChangeStreams).held > 0 ? true : undefined), { what: 'the poll to be held', timeoutMs: 5000 });
    const began = Date.now();
    await create('lp', { n: 1 });
    const res = await answer;
    expect(res.status).toBe(200);
    expect(res.body.changes.map((ch: Change) => ch.key)).toEqual(['lp']);
    expect(Date.now() - began).toBeLessThan(5000);

    const quiet = Date.now();
    const empty = await feed({ since: res.body.last_cursor, feed: 'longpoll', timeout: '1' }).expect(200);
    expect(empty.body).toEqual({ changes: [], last_cursor: res.body.last_cursor });
    expect(Date.now() - quiet).toBeGreaterThanOrEqual(900);
  });
});

describe('change feed: a write that commits late', () => {
  let ds: Docstore;
  let c: Client;
  useDocstore({ app: (d) => (ds = d), client: (x) => (c = x) });

  it('reaches a reader that already passed 10 writes that began after it and committed before it', async () => {
    const read = async (since: string) =>
      (await request(ds.http).get(`/api/v1/client/${c.id}/changes`).query({ since, limit: '1000' }).set(c.auth).expect(200)).body;
    const start = (await read('now')).last_cursor as string;
    let commit!: () => void;
    const held = new Promise<void>((resolve) => (commit = resolve));
    const scope = { clientId: c.id, environment: 'production', context: 'shop', type: 'product' };
    // Writes its document and its change (taking its place in the log), then holds the transaction open.
    let wrote!: () => void;
    const written = new Promise<void>((resolve) => (wrote = resolve));
    const late = ds.get(Sql).transaction(async (tx) => {
      await ds.get(DocumentsRepository).bulkUpsert(scope, [{ key: 'late', data: {}, expiresAt: null }], tx);
      wrote();
      await held;
    });
    await written;
    for (let i = 0; i < 10; i++) {
      await request(ds.http)
        .post(`${c.doc()}/w${i}`)
        .set(c.auth)
        .send(docBody(`w${i}`, { i }))
        .expect(201);
    }
    const passed = await eventually(
      async () => {
        const page = await read(start);
        return page.changes.length === 10 ? page : undefined;
      },
      { what: 'the 10 later writes in the feed', timeoutMs: 10_000 },
    );
    expect(passed.changes.map((ch: Change) => ch.key)).toEqual(Array.from({ length: 10 }, (_, i) => `w${i}`));
    commit();
    await late;
    const after = await eventually(
      async () => {
        const page = await read(passed.last_cursor);
        return page.changes.length > 0 ? page : undefined;
      },
      { what: 'the late write in the feed', timeoutMs: 10_000 },
    );
    expect(after.changes.map((ch: Change) => ch.key)).toEqual(['late']);
    // Its place in the write log is before the 10: a reader of `WHERE id > <last id seen>` would have skipped it.
    const ids = await ds.get(Sql).rows<{ key: string; id: string }>(`SELECT key, id::text FROM docstore.changes WHERE client_id = $1 ORDER BY id`, [c.id]);
    expect(ids[0].key).toBe('late');
  });
});

describe('change feed: event streams', () => {
  let ds: Docstore;
  let c: Client;
  let base: string;
  useDocstore(
    {
      app: (d) => (ds = d),
      client: (x) => (c = x),
    },
    { CHANGES_HEARTBEAT_SECONDS: '1', CHANGES_TOKEN_CHECK_MS: '200', CHANGES_MAX_STREAMS_PER_TOKEN: '3', CHANGES_MAX_STREAMS_PER_CLIENT: '4' },
  );
  beforeAll(async () => {
    base = await listeningBase(ds.http);
  });

  const url = (client: Client, query = '') => `${base}/api/v1/client/${client.id}/changes${query}`;
  const create = (key: string, data: Record<string, unknown> = {}, path = c.doc()) =>
    request(ds.http)
      .post(`${path}/${key}`)
      .set(c.auth)
      .send(docBody(key, data, {}, ...(path.split('/').filter((_, i) => [5, 7, 9].includes(i)) as [string, string, string])))
      .expect(201);

  it('sends each change as an event whose id is its cursor, resumes from Last-Event-ID, and beats every interval', async () => {
    await create('s1');
    const stream = await openStream(url(c), c.auth);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await create('s2');
    await eventually(() => (stream.changes().length === 2 ? true : undefined), { what: 'two events', timeoutMs: 5000 });
    const [first, second] = stream.events.filter((e) => e.event === 'change');
    expect(first.id).toBe(JSON.parse(first.data).cursor);
    expect(stream.changes().map((ch) => ch.key)).toEqual(['s1', 's2']);
    await eventually(() => (stream.comments.length > 0 ? true : undefined), { what: 'a heartbeat', timeoutMs: 5000 });
    await stream.close();

    await create('s3');
    const resumed = await openStream(url(c, `?since=${first.id}`), { ...c.auth, 'Last-Event-ID': second.id! });
    await eventually(() => (resumed.changes().length >= 1 ? true : undefined), { what: 'the resumed event', timeoutMs: 5000 });
    expect(resumed.changes().map((ch) => ch.key)).toEqual(['s3']);
    await resumed.close();
  });

  it('shows a limited token only its areas, also in later events', async () => {
    const limited = await ds.mintToken(c.id, {
      permissions: [],
      document_rules: [{ environment: 'production', context: 'shop', permissions: ['document:read'] }],
    });
    const stream = await openStream(url(c, '?since=now'), { Authorization: `Bearer ${limited}` });
    await create('b1', {}, c.doc('production', 'blog', 'post'));
    await create('a1');
    await eventually(() => (stream.changes().length >= 1 ? true : undefined), { what: 'the readable event', timeoutMs: 5000 });
    await create('a2');
    await eventually(() => (stream.changes().length >= 2 ? true : undefined), { what: 'the second readable event', timeoutMs: 5000 });
    expect(stream.changes().map((ch) => ch.key)).toEqual(['a1', 'a2']);
    await stream.close();
  });

  it("ends a revoked token's stream with a final event within 5 s", async () => {
    const created = await request(ds.http)
      .post(`/api/v1/client/${c.id}/tokens`)
      .set(c.auth)
      .send({ name: 'reader', scopes: ['document:read'] })
      .expect(201);
    const stream = await openStream(url(c, '?since=now'), { Authorization: `Bearer ${created.body.token}` });
    await eventually(() => (ds.get(ChangeStreams).held > 0 ? true : undefined), { what: 'the stream to be held', timeoutMs: 5000 });
    const revoked = Date.now();
    await request(ds.http).delete(`/api/v1/client/${c.id}/tokens/${created.body.token_details.id}`).set(c.auth).expect(204);
    await eventually(() => (stream.ended ? true : undefined), { what: 'the stream to end', timeoutMs: 5000 });
    expect(Date.now() - revoked).toBeLessThan(5000);
    const end = stream.events[stream.events.length - 1];
    expect(end.event).toBe('end');
    expect(JSON.parse(end.data)).toMatchObject({ reason: 'token_revoked', last_cursor: expect.stringMatching(/^\d+$/) });
  });

  it('caps open streams per token and per client with 429 and the rate-limit body', async () => {
    const open = [];
    for (let i = 0; i < 3; i++) open.push(await openStream(url(c, '?since=now'), c.auth));
    const refused = await request(ds.http).get(`/api/v1/client/${c.id}/changes`).set(c.auth).set('Accept', 'text/event-stream').expect(429);
    expect(refused.body).toEqual({ message: 'Too Many Attempts.', retry_after: expect.any(Number) });
    const second = await ds.mintToken(c.id, ['document:read']);
    open.push(await openStream(url(c, '?since=now'), { Authorization: `Bearer ${second}` }));
    await request(ds.http).get(`/api/v1/client/${c.id}/changes?feed=longpoll&timeout=1&since=now`).set('Authorization', `Bearer ${second}`).expect(429);
    for (const stream of open) await stream.close();
    await eventually(() => (ds.get(ChangeStreams).held === 0 ? true : undefined), { what: 'the streams to be released', timeoutMs: 5000 });
    await request(ds.http).get(`/api/v1/client/${c.id}/changes?feed=longpoll&timeout=1&since=now`).set(c.auth).expect(200);
  });

  it('refuses a bad Last-Event-ID with 422 and a cursor past retention with 410 before streaming', async () => {
    const bad = await request(ds.http)
      .get(`/api/v1/client/${c.id}/changes`)
      .set(c.auth)
      .set('Accept', 'text/event-stream')
      .set('Last-Event-ID', 'x')
      .expect(422);
    expect(Object.keys(bad.body.errors)).toEqual(['Last-Event-ID']);
  });
});

describe('change feed: generated parameters', () => {
  let ds: Docstore;
  let c: Client;
  useDocstore({ app: (d) => (ds = d), client: (x) => (c = x) }, { RATE_LIMIT_PER_MINUTE: '1000000' });

  it('answers any query with a page, 410 or 422 naming a parameter, never a 5xx', async () => {
    await request(ds.http)
      .post(`${c.doc()}/a`)
      .set(c.auth)
      .send(docBody('a', { price: 3 }))
      .expect(201);
    const text = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.constantFrom('', 'now', '0', '1', '-1', '00', '1e3', '9223372036854775808', '\u0000', '\ud800', 'a/b', 'true', 'false'),
      fc.bigInt({ min: 0n, max: 10n ** 20n }).map(String),
    );
    const query = fc.record(
      {
        since: text,
        limit: text,
        collection: fc.oneof(text, fc.constantFrom('production', 'production/shop', 'production/shop/product', 'a//b', '/', 'x/y/z/w')),
        include_docs: text,
        feed: fc.constantFrom('normal', 'continuous', '', 'LONGPOLL'),
        timeout: text,
        'filter[price_gte]': text,
        'filter[a][op]': text,
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(query, async (q) => {
        const res = await request(ds.http).get(`/api/v1/client/${c.id}/changes`).query(q).set(c.auth);
        expect(res.status).toBeLessThan(500);
        if (res.status === 200) {
          expect(res.body.last_cursor).toMatch(/^\d+$/);
          expect(Array.isArray(res.body.changes)).toBe(true);
        } else if (res.status === 410) {
          expect(res.body.oldest_cursor).toMatch(/^\d+$/);
        } else {
          expect([400, 422]).toContain(res.status);
          expect(typeof res.body.message).toBe('string');
        }
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 60) },
    );
  }, 60_000);

  it('keeps clients apart: a token of another client gets 403, whatever it asks', async () => {
    const other = await ds.newClient();
    for (const accept of ['application/json', 'text/event-stream']) {
      await request(ds.http).get(`/api/v1/client/${c.id}/changes`).set(other.auth).set('Accept', accept).expect(403);
    }
  });
});

describe('change feed: operations', () => {
  it('reports open streams and event lag in /metrics, and ends streams with a final event when the server drains', async () => {
    const ds = await startDocstore();
    try {
      const c = await ds.newClient();
      const base = await listeningBase(ds.http);
      const stream = await openStream(`${base}/api/v1/client/${c.id}/changes?since=now`, c.auth);
      await request(ds.http).post(`${c.doc()}/m`).set(c.auth).send(docBody('m', {})).expect(201);
      await eventually(() => (stream.changes().length === 1 ? true : undefined), { what: 'the event', timeoutMs: 5000 });
      const metrics = (await request(ds.http).get('/metrics').expect(200)).text;
      expect(metrics).toMatch(/^changes_open_streams\{[^}]*mode="eventstream"[^}]*\} 1$/m);
      expect(metrics).toMatch(/^changes_event_lag_seconds_count\{[^}]*\} 1$/m);
      // SIGTERM's drain (libs/server) announces itself on the server: streams end before it waits for requests.
      ds.http.emit(DRAINING_EVENT);
      await eventually(() => (stream.ended ? true : undefined), { what: 'the stream to end', timeoutMs: 5000 });
      const end = stream.events[stream.events.length - 1];
      expect(end.event).toBe('end');
      expect(JSON.parse(end.data)).toEqual({ reason: 'shutdown', last_cursor: stream.changes()[0].cursor });
    } finally {
      await ds.close();
    }
  });
});
