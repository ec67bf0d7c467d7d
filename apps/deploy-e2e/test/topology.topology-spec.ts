import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { eventually, FakeFcm, startWebhookReceiver, type WebhookReceiver } from '@app/testkit';
import { freshDatabase } from '@app/testkit';
import { startTopology, type Topology } from './support/topology';

// One topology for the file (it takes ~30 s to start on two cores); the tests run in order, the restarts last.
jest.setTimeout(150_000);

/** How late a docstore replica may serve a replaced schema (apps/docstore/BEHAVIOUR.md, Schemas). */
const SCHEMA_BOUND_MS = 1000;
/** The docstore's token-endpoint limit here: under 50 a minute, so counted exactly across replicas. */
const SMALL_LIMIT = 30;

interface Answer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** One HTTP request; a connection that fails is status 0. */
async function call(method: string, url: string, headers: Record<string, string> = {}, body?: unknown): Promise<Answer> {
  try {
    const res = await fetch(url, {
      method,
      headers: {
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': typeof body === 'string' ? 'text/csv' : 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await res.text();
    let json: unknown = text;
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON: kept as text
    }
    return { status: res.status, headers: res.headers, body: json };
  } catch (error) {
    const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
    return { status: 0, headers: new Headers(), body: `${(error as Error).message}: ${cause?.code ?? cause?.message ?? ''}` };
  }
}

/** Runs `jobs` with at most `width` at a time. */
async function pool<T>(width: number, jobs: Array<() => Promise<T>>): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < jobs.length) {
        const i = next++;
        out[i] = await jobs[i]();
      }
    }),
  );
  return out;
}

/** A docstore document of the collection the tests use. */
const product = (key: string, data: Record<string, unknown>) => ({ environment: 'production', context: 'shop', type: 'product', key, data });

/** A CSV file of sale lines `from`..`to` (exclusive) at `price`. */
function salesCsv(from: number, to: number, price: string): string {
  const lines = ['OrderId;OrderDate;OrderStatus;ProductId;ProductPrice;StoreId;CustomerCPF_CNPJ;CustomerPhone;CustomerEmail'];
  for (let n = from; n < to; n++) lines.push(`O-${n};2026-11-20T10:15:00.000Z;paid;P-${n % 7};${price};S-1;12345678901;5511999990000;ana@example.com`);
  return `${lines.join('\n')}\n`;
}

describe('the production topology on one machine (npm run topology)', () => {
  const CLIENT = randomUUID();
  let topology: Topology;
  let db: Client;
  let fcm: FakeFcm;
  let receiver: WebhookReceiver;
  let docToken: string;
  let apikey: string;
  let salesKey: string;
  let pushToken: string;
  let docs: string;
  let api: string;

  beforeAll(async () => {
    fcm = await new FakeFcm().start();
    receiver = await startWebhookReceiver();
    const databaseUrl = await freshDatabase(`t_${process.env.TEST_RUN_ID}_topology`);
    topology = await startTopology({
      databaseUrl,
      encryptionKeys: process.env.ENCRYPTION_KEYS,
      env: { LOG_LEVEL: 'warn' },
      appEnv: {
        docstore: { WEBHOOK_ALLOWED_TARGETS: '127.0.0.1', WEBHOOK_RELAY_INTERVAL_MS: '100', RATE_LIMIT_AUTH_PER_MINUTE: String(SMALL_LIMIT) },
        'ingest-push': {
          PUSH_PROVIDER_ANDROID: 'fcm',
          FCM_BASE_URL: fcm.baseUrl,
          FCM_SERVICE_ACCOUNT_FILE: fcm.serviceAccountFile,
          PUSH_RELAY_INTERVAL_MS: '50',
          PUSH_SWEEP_SECONDS: '1',
          PUSH_WORKER_LOCK_SECONDS: '2',
          PUSH_RETRY_SCHEDULE: '0.3,0.3',
        },
      },
    });
    db = new Client({ connectionString: databaseUrl });
    await db.connect();
    [docToken, apikey, salesKey, pushToken] = await Promise.all([
      topology.cli('docstore', ['token', '--client', CLIENT, '--scopes', '*', '--name', 'topology']),
      topology.cli('gateway', ['apikey', '--phone', '15550100001', '--phone-id', '106540352242922', '--name', 'topology']),
      topology.cli('ingest-push', ['apikey', '--name', 'topology', '--account', 'shop']),
      topology.cli('ingest-push', ['push-token', '--name', 'topology', '--account', 'shop']),
    ]);
    api = `/api/v1/client/${CLIENT}`;
    docs = `${api}/production/context/shop/type/product`;
  }, 300_000); // a first run builds the three apps before starting them

  afterAll(async () => {
    await db?.end();
    await topology?.stop();
    await fcm?.stop();
    await receiver?.close();
  });

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const apis = (app: string) => topology.replicas().filter((r) => r.app === app && r.role === 'api');

  it('routes each app round robin over its two API replicas', async () => {
    const served = await Promise.all(Array.from({ length: 8 }, () => call('GET', `${topology.urls.docstore}${api}/tokens`, bearer(docToken))));
    expect(served.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(new Set(served.map((a) => a.headers.get('x-upstream')))).toEqual(new Set(apis('docstore').map((r) => new URL(r.url).host)));
  });

  it('shares rate limits between replicas, exactly for a small limit', async () => {
    const token = await topology.cli('docstore', ['token', '--client', CLIENT, '--scopes', '*', '--name', 'limits']);
    // One window for the whole burst: a burst that would straddle the minute waits for the next one.
    await eventually(async () => (Date.now() % 60_000 < 50_000 ? true : undefined));
    const answers = await Promise.all(Array.from({ length: SMALL_LIMIT + 20 }, () => call('GET', `${topology.urls.docstore}${api}/tokens`, bearer(token))));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(SMALL_LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    expect(new Set(answers.map((a) => a.headers.get('x-upstream'))).size).toBe(2);
  });

  it('has every docstore replica use a replaced schema within the documented bound', async () => {
    const schema = (required: string[]) => ({ schema: { type: 'object', required, properties: { name: { type: 'string' }, price: { type: 'number' } } } });
    expect((await call('POST', `${topology.urls.docstore}${docs}/schema`, bearer(docToken), schema(['name']))).status).toBeLessThan(300);
    // Each replica compiles and caches the first schema.
    for (const replica of apis('docstore')) {
      const key = `warm-${randomUUID()}`;
      const created = await call('POST', `${replica.url}${docs}/${key}`, bearer(docToken), product(key, { name: 'Mug' }));
      expect(created.status).toBe(201);
    }
    const changed = await call('POST', `${topology.urls.docstore}${docs}/schema`, bearer(docToken), schema(['name', 'price']));
    expect(changed.status).toBeLessThan(300);
    const since = Date.now();
    const seenAfter = await Promise.all(
      apis('docstore').map((replica) =>
        eventually(async () => {
          const key = `check-${randomUUID()}`;
          const answer = await call('POST', `${replica.url}${docs}/${key}`, bearer(docToken), product(key, { name: 'Mug' }));
          return answer.status === 422 ? Date.now() - since : undefined;
        }),
      ),
    );
    expect(Math.max(...seenAfter)).toBeLessThan(SCHEMA_BOUND_MS);
  });

  it('merges uploads running on both ingest-push replicas at once', async () => {
    const [first, second] = apis('ingest-push');
    const upload = (url: string, csv: string) => call('POST', `${url}/DataInserterSales/api/sales`, { apikey: salesKey }, csv);
    // Lines 10000-19999 are in both files, at different prices.
    const answers = await Promise.all([upload(first.url, salesCsv(0, 20_000, '1.5')), upload(second.url, salesCsv(10_000, 30_000, '2.5'))]);
    expect(answers.map((a) => [a.status, a.body.status])).toEqual([
      [201, 'completed'],
      [201, 'completed'],
    ]);
    const { rows } = await db.query<{ part: string; price: number; ingestion_id: string; n: string }>(
      `SELECT CASE WHEN order_id::text < 'O-' THEN '' WHEN substr(order_id, 3)::int < 10000 THEN 'first' WHEN substr(order_id, 3)::int < 20000 THEN 'both' ELSE 'second' END AS part,
              product_price AS price, ingestion_id, count(*) AS n
         FROM ingest_push.sales GROUP BY 1, 2, 3 ORDER BY 1`,
    );
    const [firstId, secondId] = answers.map((a) => a.body.ingestion_id as string);
    const both = rows.find((r) => r.part === 'both');
    // Every line once; the overlap wholly from the upload that merged last (merges of one account take turns).
    expect(rows.map((r) => [r.part, Number(r.n)])).toEqual([
      ['both', 10_000],
      ['first', 10_000],
      ['second', 10_000],
    ]);
    expect(rows.find((r) => r.part === 'first')).toMatchObject({ price: 1.5, ingestion_id: firstId });
    expect(rows.find((r) => r.part === 'second')).toMatchObject({ price: 2.5, ingestion_id: secondId });
    expect([
      [1.5, firstId],
      [2.5, secondId],
    ]).toContainEqual([both?.price, both?.ingestion_id]);
  });

  it('delivers each webhook and each push, again only what was in flight, while an API replica and a worker are killed mid-run', async () => {
    const hook = await call('POST', `${topology.urls.docstore}${api}/webhooks`, bearer(docToken), { url: receiver.url, events: ['document.created'] });
    expect(hook.status).toBe(201);
    const PUSHES = 400;
    fcm.delayMs = 20; // so that sends are still going when the worker dies
    const batch = await call(
      'POST',
      `${topology.urls['ingest-push']}/api/pushm/bulk`,
      { ...bearer(pushToken), 'content-type': 'application/hal+json' },
      { pushs: Array.from({ length: PUSHES }, (_, i) => ({ nm_push: `kill-${i}`, nm_plataforma: 'Android', nm_mensagem: `push ${i}` })) },
    );
    expect(batch.status).toBe(202);

    let created = 0;
    let killed: Promise<void> | undefined;
    let killedAt = Infinity;
    receiver.answer(() => ({ status: 200, delayMs: 20 })); // so that sends are still going when the worker dies
    const writes = await pool(
      8,
      Array.from({ length: 300 }, (_, i) => async () => {
        const answer = await call('POST', `${topology.urls.docstore}${docs}/kill-${i}`, bearer(docToken), product(`kill-${i}`, { name: `n${i}`, price: i }));
        if (answer.status === 201 && ++created === 100) {
          killed = (async () => {
            await eventually(async () => (fcm.received.length >= PUSHES / 4 ? true : undefined));
            await Promise.all(['docstore-1', 'docstore-webhooks', 'ingest-push-workers'].map((name) => topology.kill(name)));
            killedAt = Date.now();
            await Promise.all(['docstore-1', 'docstore-webhooks', 'ingest-push-workers'].map((name) => topology.start(name)));
          })();
        }
        return answer.status;
      }),
    );
    await killed;
    fcm.delayMs = 0;
    // A create in flight on the killed replica may be answered 502 (nginx resends only what it could not send);
    // every other one is 201, and whatever was stored is announced.
    expect(writes.filter((s) => s !== 201 && s !== 502)).toEqual([]);
    const keys: string[] = (
      await db.query<{ key: string }>(`SELECT key FROM docstore.documents WHERE client_id = $1 AND key LIKE 'kill-%'`, [CLIENT])
    ).rows.map((r) => r.key);
    expect(keys.length).toBeGreaterThanOrEqual(writes.filter((s) => s === 201).length);

    const announced = () => new Set(receiver.calls.filter((c) => String(c.json?.data?.key).startsWith('kill-')).map((c) => c.headers['webhook-id']));
    await eventually(async () => (announced().size >= keys.length ? true : undefined));
    const pushRows = await eventually(async () => {
      const { rows } = await db.query<{ device: string; status: string; attempts: number }>(
        `SELECT device, status, attempts FROM ingest_push.push_items WHERE batch_id = $1`,
        [batch.body.batch_id],
      );
      return rows.every((r) => r.status === 'sent') ? rows : undefined;
    });
    // Nothing more is on its way: the delivery queue is empty.
    const worker = topology.replicas().find((r) => r.name === 'docstore-webhooks')!;
    await eventually(async () => {
      const health = await call('GET', `${worker.url}/health`);
      const queue = health.body?.info?.['queue:webhook-delivery'];
      return queue && queue.waiting + queue.active + queue.delayed === 0 ? true : undefined;
    });

    // Webhooks: each stored document announced (counted by event id at the receiver), and once, but for a send in flight
    // as its worker died: the receiver had it, the worker never recorded it, and after the claim's lease another worker
    // sends it again with the same webhook-id (libs/webhooks README, Guarantees). So a repeat's first copy arrived before
    // the kill, and every other copy after it.
    const perEvent = new Map<string, number[]>();
    for (const c of receiver.calls.filter((x) => String(x.json?.data?.key).startsWith('kill-'))) {
      const id = String(c.headers['webhook-id']);
      perEvent.set(id, [...(perEvent.get(id) ?? []), c.at]);
    }
    const repeats = [...perEvent.values()].filter((at) => at.length > 1);
    const notInFlightAtKill = repeats.filter(([first, ...again]) => first > killedAt + 500 || again.some((t) => t <= killedAt)); // 500 ms: bytes the dead worker wrote may be read just after
    // Pushes: none lost; one reaches FCM twice only when its send was in flight as the worker died (PUSH_WORKER_LOCK_SECONDS).
    const sends = new Map<string, number>();
    for (const r of fcm.received.filter((x) => x.device.startsWith('kill-'))) sends.set(r.device, (sends.get(r.device) ?? 0) + 1);
    const attempts = new Map(pushRows.map((r) => [r.device, r.attempts]));
    expect({
      announced: perEvent.size,
      repeatedButNotInFlightAtKill: notInFlightAtKill.length,
      pushesSent: sends.size,
      pushesSentMoreThanAttempted: [...sends].filter(([device, n]) => n > attempts.get(device)!).length,
    }).toEqual({ announced: keys.length, repeatedButNotInFlightAtKill: 0, pushesSent: PUSHES, pushesSentMoreThanAttempted: 0 });
  });

  it("answers every one of 1,000 mixed requests while each app's API replicas restart one at a time", async () => {
    // The sandbox's customer writes first: free-form messages need the contact's service window open.
    const opened = await call(
      'POST',
      `${topology.urls.gateway}/api/Sandbox/Inbound`,
      { apikey, version: '6.0' },
      { from: '15550123456', type: 'text', text: { body: 'hello' } },
    );
    expect(opened.status).toBe(200);
    const message = await call(
      'POST',
      `${topology.urls.gateway}/api/Messages`,
      { apikey, version: '6.0' },
      { messaging_product: 'whatsapp', to: '15550123456', type: 'text', text: { body: 'hello' } },
    );
    expect(message.status).toBeLessThan(300);
    const messageId = message.body.messages[0].id as string;
    // Two stores upload files (a process runs 4 uploads at once, 2 per account; more is 503 SALES_BUSY by design).
    const loaderKeys = await Promise.all([1, 2].map((n) => topology.cli('ingest-push', ['apikey', '--name', 'loader', '--account', `store-${n}`])));
    const loaders: Array<Promise<void>> = loaderKeys.map(() => Promise.resolve());
    let uploads = 0;
    const requests: Array<() => Promise<Answer>> = [
      () => {
        const key = `roll-${randomUUID()}`;
        return call('POST', `${topology.urls.docstore}${docs}/${key}`, bearer(docToken), product(key, { name: 'Mug', price: 1 }));
      },
      () => call('GET', `${topology.urls.docstore}${docs}?per_page=5`, bearer(docToken)),
      () =>
        call(
          'POST',
          `${topology.urls.gateway}/api/Messages`,
          { apikey, version: '6.0' },
          { messaging_product: 'whatsapp', to: '15550123456', type: 'text', text: { body: 'roll' } },
        ),
      () => call('GET', `${topology.urls.gateway}/api/Messages/${messageId}`, { apikey, version: '6.0' }),
      () =>
        call('POST', `${topology.urls['ingest-push']}/api/pushm/bulk?dry_run=true`, bearer(pushToken), {
          pushs: [{ nm_push: 'dry', nm_plataforma: 'Android', nm_mensagem: 'hi' }],
        }),
      () => {
        // Each loader uploads one file at a time, as the upload tool does.
        const n = uploads++ % loaders.length;
        const answer = loaders[n].then(() =>
          call('POST', `${topology.urls['ingest-push']}/DataInserterSales/api/sales`, { apikey: loaderKeys[n] }, salesCsv(50_000, 50_005, '3.5')),
        );
        loaders[n] = answer.then(() => undefined);
        return answer;
      },
    ];
    // Each app's Deployment rolls on its own, one replica at a time: round k restarts replica k of every app at once.
    const rounds = [1, 2].map((k) => ['docstore', 'gateway', 'ingest-push'].map((app) => `${app}-${k}`));
    // Request i goes out once round ⌊i × 2 / 1000⌋ has begun, so every round has requests around it.
    const begun = rounds.map(() => {
      let open!: () => void;
      const promise = new Promise<void>((resolve) => (open = resolve));
      return { promise, open };
    });
    const restarts = (async () => {
      for (let k = 0; k < rounds.length; k++) {
        begun[k].open();
        await Promise.all(rounds[k].map((name) => topology.restart(name)));
      }
    })();
    const TOTAL = 1000;
    const answers = await pool(
      6,
      Array.from({ length: TOTAL }, (_, i) => async () => {
        await begun[Math.floor((i * rounds.length) / TOTAL)].promise;
        const answer = await requests[i % requests.length]();
        return { i, status: answer.status, body: answer.status >= 200 && answer.status < 300 ? undefined : answer.body };
      }),
    );
    await restarts;
    expect(answers).toHaveLength(TOTAL);
    expect(answers.filter((a) => a.status < 200 || a.status >= 300)).toEqual([]);
    expect(topology.replicas().every((r) => r.running)).toBe(true);
  });
});
