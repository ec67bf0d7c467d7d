import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Sql } from '@app/database';
import { eventually } from '@app/testkit';
import { ChangeSequencer } from '../src/changes/change-sequencer.service';
import { ChangeStreamCaps } from '../src/changes/change-stream-caps.service';
import { DocumentsRepository } from '../src/documents/documents.repository';
import { listeningBase, openStream, type Change } from './support/change-stream';
import { request, startDocstore, type Client, type Docstore } from './support/docstore-test';

/**
 * The proof: 10,000 writes at about 500/s by 8 writers. Through PgBouncer (`npm run test:pooler`) its two
 * server connections, each held 50–500 ms by a fifth of the writes, allow ≈ 35 writes/s: 2,000 writes there.
 * CHANGES_PROOF_WRITES sets the count.
 */
const WRITES = Number(process.env.CHANGES_PROOF_WRITES ?? (process.env.TEST_DATABASE_POOLER_URL ? 2000 : 10_000));
const WRITERS = 8;
const RATE_PER_SECOND = 500;
/** Enough documents that a held transaction's row lock seldom stops another writer (every key still gets ≈ 25 versions). */
const KEYS = 400;
const HELD_SHARE = 0.2;
/** 20 s at RATE_PER_SECOND on a quiet machine; a loaded one (CI runs other suites beside it) managed ≈ 120 writes/s. */
const TIMEOUT_MS = Math.max(120_000, WRITES * 30);

/**
 * Writers and a reader of the event stream at once, the writes paced at RATE_PER_SECOND. A fifth of them are
 * transactions held open 50–500 ms after their change took its place in the log (so others that began later commit
 * first); the writer goes on meanwhile, as an application's other requests would.
 * The reader is cut three times and resumes each time from its last event id. It must receive every
 * committed write exactly once, each document's versions in increasing order.
 */
describe('change feed: every committed change once, in order, across reconnects', () => {
  let ds: Docstore;
  let c: Client;
  let base: string;

  beforeAll(async () => {
    // At 500 writes/s a fifth held ≈ 275 ms on average keeps ≈ 28 transactions open at once.
    ds = await startDocstore({ DB_POOL_SIZE: '40', RATE_LIMIT_PER_MINUTE: '1000000' });
    base = await listeningBase(ds.http);
    c = await ds.newClient();
  });
  afterAll(() => ds.close());

  it(
    `${WRITES} writes by ${WRITERS} writers at up to ${RATE_PER_SECOND}/s, 20 % held open, a reader cut 3 times: 0 gaps, 0 repeats`,
    async () => {
      const url = `${base}/api/v1/client/${c.id}/changes?include_docs=false`;
      const scope = { clientId: c.id, environment: 'production', context: 'shop', type: 'product' };
      const committed = new Set<string>();
      const received: Change[] = [];
      let stream = await openStream(`${url}&since=now`, c.auth);
      const taken = () => [...received, ...stream.changes()];

      let next = 0;
      const held: Array<Promise<void>> = [];
      const started = Date.now();
      const writer = async (w: number) => {
        for (let n = next++; n < WRITES; n = next++) {
          const due = started + (n * 1000) / RATE_PER_SECOND - Date.now();
          if (due > 0) await sleep(due);
          const key = `k${(n * 7 + w) % KEYS}`;
          if (Math.random() < HELD_SHARE) {
            let logged!: () => void;
            const inLog = new Promise<void>((resolve) => (logged = resolve));
            const repository = ds.get(DocumentsRepository);
            const commit = repository
              .transaction(async (tx) => {
                const result = await repository.bulkUpsert(scope, [{ key, data: { n }, expiresAt: null }], tx);
                logged();
                await sleep(50 + Math.random() * 450);
                return result;
              })
              .then((written) => {
                ds.get(ChangeSequencer).recorded();
                committed.add(`${key}@${written.value[0].version}`);
              });
            held.push(commit);
            await Promise.race([inLog, commit]);
          } else {
            const res = await request(ds.http)
              .post(`/api/v1/client/${c.id}/production/context/shop/type/product/bulk`)
              .set(c.auth)
              .send({ documents: [{ key, data: { n } }] })
              .expect(200);
            committed.add(`${key}@${res.body[0].version}`);
          }
        }
      };
      const writing = Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w))).then(() => Promise.all(held));

      // Cut the reader three times mid-stream; each time it resumes from the last id it received.
      for (const share of [0.25, 0.5, 0.75]) {
        await eventually(() => (taken().length >= WRITES * share ? true : undefined), { what: `${share * 100} % of the changes`, timeoutMs: TIMEOUT_MS });
        await stream.close();
        const mine = stream.changes();
        received.push(...mine);
        const last = received[received.length - 1].cursor;
        stream = await openStream(url, { ...c.auth, 'Last-Event-ID': last });
      }
      await writing;
      expect(committed.size).toBe(WRITES);
      await eventually(() => (taken().length >= WRITES ? true : undefined), { what: 'every change', timeoutMs: 30_000 });
      await stream.close();
      received.push(...stream.changes());

      const cursors = received.map((ch) => BigInt(ch.cursor));
      expect(new Set(cursors).size).toBe(received.length); // 0 repeats
      expect(cursors.every((cursor, i) => i === 0 || cursor > cursors[i - 1])).toBe(true);
      const seen = received.map((ch) => `${ch.key}@${ch.version}`);
      expect(new Set(seen).size).toBe(seen.length);
      expect([...committed].filter((write) => !seen.includes(write))).toEqual([]); // 0 gaps
      expect(seen.filter((write) => !committed.has(write))).toEqual([]);
      const lastVersion = new Map<string, number>();
      for (const ch of received) {
        expect(ch.version).toBeGreaterThan(lastVersion.get(ch.key) ?? 0);
        lastVersion.set(ch.key, ch.version);
      }
      const unnumbered = await ds.get(Sql).one<{ n: number }>(`SELECT count(*)::int AS n FROM docstore.changes WHERE client_id = $1 AND seq IS NULL`, [c.id]);
      expect(unnumbered!.n).toBe(0);
    },
    TIMEOUT_MS,
  );
});

describe('change feed across replicas', () => {
  let a: Docstore;
  let b: Docstore;

  beforeAll(async () => {
    const shared = {
      REDIS_PREFIX: `test:${process.env.TEST_RUN_ID}:replicas-${Date.now()}:`,
      CHANGES_SWEEP_MS: '10000',
      CHANGES_MAX_STREAMS_PER_TOKEN: '2',
      CHANGES_MAX_STREAMS_PER_CLIENT: '3',
      CHANGES_STREAM_LEASE_SECONDS: '3',
    };
    a = await startDocstore(shared);
    b = await startDocstore(shared);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('a write through replica A reaches a stream on replica B through Redis, well before B would sweep', async () => {
    const c = await a.newClient();
    const stream = await openStream(`${await listeningBase(b.http)}/api/v1/client/${c.id}/changes?since=now`, c.auth);
    const sent = Date.now();
    await request(a.http)
      .post(`${c.doc()}/x`)
      .set(c.auth)
      .send({ environment: 'production', context: 'shop', type: 'product', key: 'x', data: {} })
      .expect(201);
    await eventually(() => (stream.changes().length === 1 ? true : undefined), { what: 'the event on B', timeoutMs: 5000 });
    expect(Date.now() - sent).toBeLessThan(2000);
    await stream.close();
  });

  it('caps open streams per token and per client across replicas; a closed stream frees its place, and a dead replica stops counting', async () => {
    const c = await a.newClient();
    const other = { Authorization: `Bearer ${await a.mintToken(c.id, ['document:read'])}` };
    const base = { a: await listeningBase(a.http), b: await listeningBase(b.http) };
    const url = (replica: 'a' | 'b') => `${base[replica]}/api/v1/client/${c.id}/changes?since=now`;
    const longPoll = `/api/v1/client/${c.id}/changes?feed=longpoll&timeout=1&since=now`;
    /** A stream through `replica` once the caps let it open. */
    const opened = (replica: 'a' | 'b', auth: Record<string, string>) =>
      eventually(
        async () => {
          const stream = await openStream(url(replica), auth);
          if (stream.status === 200) return stream;
          await stream.close();
          return undefined;
        },
        { what: `a stream through ${replica}`, timeoutMs: 10_000 },
      );

    // The token's cap (2) is reached by one stream on A and one on B.
    const first = await openStream(url('a'), c.auth);
    const second = await openStream(url('b'), c.auth);
    expect([first.status, second.status]).toEqual([200, 200]);
    const refused = await request(b.http).get(`/api/v1/client/${c.id}/changes`).set(c.auth).set('Accept', 'text/event-stream').expect(429);
    expect(refused.body).toEqual({ message: 'Too Many Attempts.', retry_after: expect.any(Number) });
    await request(a.http).get(longPoll).set(c.auth).expect(429);

    // The client's cap (3): another token gets one more place, on either replica, then none.
    const third = await openStream(url('b'), other);
    expect(third.status).toBe(200);
    await request(a.http).get(longPoll).set(other).expect(429);

    // A stream closed on A frees its place for B.
    await first.close();
    const fourth = await opened('b', c.auth);

    // A replica that took a place and died (never renews, never frees it) holds it only until its lease runs out.
    await third.close();
    const dead = { clientId: c.id, tokenId: randomUUID(), id: 'a-replica-that-died:1' };
    await eventually(async () => ((await a.get(ChangeStreamCaps).take(dead)) ? true : undefined), { what: "the dead replica's place", timeoutMs: 5000 });
    await request(a.http).get(longPoll).set(other).expect(429);
    const fifth = await opened('a', other);

    for (const stream of [second, fourth, fifth]) await stream.close();
  });
});
