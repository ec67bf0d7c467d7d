import { randomUUID } from 'node:crypto';
import { Pruner, Sql } from '@app/database';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '@app/testkit';
import fc from 'fast-check';
import { docBody, request, type Client, type Docstore, useDocstore } from './support/docstore-test';

// Deliveries are asynchronous: tests wait for them (never for a fixed time), bounded by this.
jest.setTimeout(60_000);

const FAST = { WEBHOOK_ALLOWED_TARGETS: '127.0.0.1', WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.2', WEBHOOK_RELAY_INTERVAL_MS: '100', WEBHOOK_CACHE_SECONDS: '0' };

describe('webhook attempt log', () => {
  let ds: Docstore;
  let c: Client;
  let receiver: WebhookReceiver;
  useDocstore({ app: (d) => (ds = d), client: (x) => (c = x) }, FAST);
  beforeEach(async () => (receiver = await startWebhookReceiver()));
  afterEach(() => receiver.close());

  const base = () => `/api/v1/client/${c.id}/webhooks`;

  /** One webhook, one document write, and the delivery once it is finished. */
  async function deliveredOnce(): Promise<{ hook: { id: string }; delivery: { id: string; status: string; attempts: number } }> {
    const hook = (
      await request(ds.http)
        .post(base())
        .set(c.auth)
        .send({ url: receiver.url, events: ['document.created'] })
        .expect(201)
    ).body;
    await request(ds.http)
      .post(`${c.doc()}/k`)
      .set(c.auth)
      .send(docBody('k', { v: 1 }))
      .expect(201);
    const delivery = await eventually(async () => {
      const log = (await request(ds.http).get(`${base()}/${hook.id}/deliveries`).set(c.auth).expect(200)).body;
      return log.data[0] && !['pending', 'retrying'].includes(log.data[0].status) ? log.data[0] : undefined;
    });
    return { hook, delivery };
  }

  it('shows every attempt: a 500 then a 200 are both there, oldest first, in the paginated envelope', async () => {
    receiver.answer((_call, n) => (n === 0 ? { status: 500, body: 'database unavailable' } : { status: 200, body: '{"received":true}' }));
    const { hook, delivery } = await deliveredOnce();
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 2, response_status: 200 });
    const res = await request(ds.http).get(`${base()}/${hook.id}/deliveries/${delivery.id}/attempts`).set(c.auth).expect(200);
    expect(res.body).toMatchObject({ current_page: 1, per_page: 15, total: 2, from: 1, to: 2, last_page: 1 });
    expect(res.body).toHaveProperty('links');
    expect(res.body.data).toEqual([
      {
        attempt: 1,
        trigger: 'schedule',
        outcome: 'failed',
        response_status: 500,
        duration_ms: expect.any(Number),
        error: 'HTTP 500: database unavailable',
        response_body: 'database unavailable',
        attempted_at: expect.any(String),
      },
      {
        attempt: 2,
        trigger: 'schedule',
        outcome: 'succeeded',
        response_status: 200,
        duration_ms: expect.any(Number),
        error: null,
        response_body: '{"received":true}',
        attempted_at: expect.any(String),
      },
    ]);
    expect(Date.parse(res.body.data[0].attempted_at)).toBeLessThanOrEqual(Date.parse(res.body.data[1].attempted_at));
  });

  it('adds a redelivery as its own attempt, triggered by redeliver, and pages through them', async () => {
    const { hook, delivery } = await deliveredOnce();
    const attempts = `${base()}/${hook.id}/deliveries/${delivery.id}/attempts`;
    await request(ds.http).post(`${base()}/${hook.id}/deliveries/${delivery.id}/redeliver`).set(c.auth).expect(202);
    await eventually(async () => ((await request(ds.http).get(attempts).set(c.auth).expect(200)).body.total === 2 ? true : undefined));
    const second = await request(ds.http).get(`${attempts}?per_page=1&page=2`).set(c.auth).expect(200);
    expect(second.body).toMatchObject({ current_page: 2, per_page: 1, total: 2, last_page: 2 });
    expect(second.body.data).toEqual([expect.objectContaining({ attempt: 2, trigger: 'redeliver', outcome: 'succeeded', response_status: 200 })]);
  });

  it('answers 404 for an unknown delivery or webhook, and keeps clients apart', async () => {
    const { hook, delivery } = await deliveredOnce();
    await request(ds.http).get(`${base()}/${hook.id}/deliveries/${randomUUID()}/attempts`).set(c.auth).expect(404);
    await request(ds.http).get(`${base()}/${randomUUID()}/deliveries/${delivery.id}/attempts`).set(c.auth).expect(404);
    await request(ds.http).get(`${base()}/${hook.id}/deliveries/not-a-uuid/attempts`).set(c.auth).expect(404);
    const other = await ds.newClient();
    // Another client's webhook through its own path: not found; through the owner's path: forbidden.
    await request(ds.http).get(`/api/v1/client/${other.id}/webhooks/${hook.id}/deliveries/${delivery.id}/attempts`).set(other.auth).expect(404);
    await request(ds.http).get(`${base()}/${hook.id}/deliveries/${delivery.id}/attempts`).set(other.auth).expect(403);
  });

  it('keeps attempts for WEBHOOK_ATTEMPT_RETENTION_DAYS: older ones are pruned', async () => {
    const { hook, delivery } = await deliveredOnce();
    await ds.get(Sql).rows(`UPDATE docstore.webhook_attempts SET attempted_at = now() - interval '31 days' WHERE delivery_id = $1`, [delivery.id]);
    expect(await ds.get(Pruner).pruneAll()).toBeGreaterThanOrEqual(1);
    const res = await request(ds.http).get(`${base()}/${hook.id}/deliveries/${delivery.id}/attempts`).set(c.auth).expect(200);
    expect(res.body).toMatchObject({ total: 0, data: [] });
  });

  it('never answers 5xx to generated delivery ids and paging, and changes nothing', async () => {
    const { hook, delivery } = await deliveredOnce();
    const log = async () => (await request(ds.http).get(`${base()}/${hook.id}/deliveries/${delivery.id}/attempts`).set(c.auth).expect(200)).body.data;
    const before = await log();
    const segment = fc.oneof(fc.constant(delivery.id), fc.uuid(), fc.string({ minLength: 1, maxLength: 40 }).map(encodeURIComponent));
    const query = fc.dictionary(fc.constantFrom('page', 'per_page', 'sort', 'x'), fc.oneof(fc.string({ maxLength: 12 }), fc.integer().map(String)), {
      maxKeys: 3,
    });
    await fc.assert(
      fc.asyncProperty(segment, query, async (id, q) => {
        const res = await request(ds.http).get(`${base()}/${hook.id}/deliveries/${id}/attempts`).query(q).set(c.auth);
        expect([200, 400, 404, 422]).toContain(res.status);
      }),
      { numRuns: 60 },
    );
    expect(await log()).toEqual(before);
  });
});
