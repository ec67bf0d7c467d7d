import fc from 'fast-check';
import request from 'supertest';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import { issuePushToken } from '../src/push/push-token.issuer';
import { PushTokensRepository } from '../src/push/push-tokens.repository';
import { dueIn, pushItem } from './support/push-test';
import { csvText, saleCells } from './support/sale-fixtures';
import { SALES_PATH, startIngest, upload, type IngestApp } from './support/sales-test';

jest.setTimeout(60_000);

const CSV = { 'Content-Type': 'application/csv' };
const HOUR_MS = 3_600_000;
const hourOf = (ms: number) => new Date(Math.floor(ms / HOUR_MS) * HOUR_MS).toISOString().replace('.000Z', 'Z');

/** One account with a sales API key and a push token. */
interface Tenant {
  key: string;
  push: string;
  accountId: string;
}

describe('the console reads of ingest-push: ingestion runs, push batches, hourly statistics', () => {
  let t: IngestApp;
  let tenant: Tenant;
  let other: Tenant;

  const newTenant = async (): Promise<Tenant> => {
    const { key, accountId, account } = await t.apiKey();
    const push = await issuePushToken(t.get(PushTokensRepository), t.get(AccountsRepository), account, 'console');
    return { key, push, accountId };
  };
  const sales = (path: string, key: string) => request(t.http).get(`${SALES_PATH}${path}`).set('apiKey', key);
  const pushGet = (path: string, token: string) => request(t.http).get(`/api/pushm${path}`).set('authorization', `Bearer ${token}`);
  const postBatch = (token: string, pushs: unknown[]) =>
    request(t.http)
      .post('/api/pushm/bulk')
      .set({ authorization: `Bearer ${token}`, 'content-type': 'application/hal+json' })
      .send(JSON.stringify({ pushs }));

  beforeAll(async () => {
    t = await startIngest();
    tenant = await newTenant();
    other = await newTenant();
  });
  afterAll(() => t.close());

  describe('GET /DataInserterSales/api/sales/ingestions', () => {
    let ids: string[];
    beforeAll(async () => {
      ids = [];
      for (const rows of [[saleCells(1), saleCells(2)], [saleCells(3), { ...saleCells(4), OrderDate: 'x' }], [saleCells(1)]]) {
        const res = await upload(t.port, { apiKey: tenant.key, ...CSV }, csvText(rows));
        expect(res.status).toBe(201);
        ids.push(res.json<{ ingestion_id: string }>().ingestion_id);
      }
      // A run that failed, recorded as such.
      await t.sql.rows(`UPDATE ingest_push.sales_ingestions SET status = 'failed', failure = 'test' WHERE id = $1`, [ids[1]]);
    });

    it('lists the account runs newest first in the paginated envelope, each as GET …/ingestions/{id} shows it without errors', async () => {
      const res = await sales('/ingestions?per_page=2', tenant.key);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ current_page: 1, per_page: 2, total: 3, last_page: 2, from: 1, to: 2 });
      expect(res.body.data.map((r: { ingestion_id: string }) => r.ingestion_id)).toEqual([ids[2], ids[1]]);
      const one = (await sales(`/ingestions/${ids[2]}`, tenant.key)).body;
      const { errors: _errors, duration_ms: _d, ...rest } = one;
      expect(res.body.data[0]).toEqual({ ...rest, duration_ms: expect.any(Number) });
      expect(res.body.data[0]).not.toHaveProperty('errors');
      expect(res.body.data[0]).toMatchObject({ status: 'completed', stage: null, inserted: 0, updated: 1, rejected: 0, bytes: expect.any(Number) });
      expect(res.body.next_page_url).toMatch(/\/DataInserterSales\/api\/sales\/ingestions\?per_page=2&page=2$/);
    });

    it('filters by status', async () => {
      const failed = await sales('/ingestions?status=failed', tenant.key);
      expect(failed.body.data.map((r: { ingestion_id: string }) => r.ingestion_id)).toEqual([ids[1]]);
      expect((await sales('/ingestions?status=running', tenant.key)).body).toMatchObject({ total: 0, data: [] });
    });

    it('shows another account none of them, and 404 for each', async () => {
      expect((await sales('/ingestions', other.key)).body).toMatchObject({ total: 0, data: [] });
      expect((await sales(`/ingestions/${ids[0]}`, other.key)).status).toBe(404);
    });

    it('answers 422 naming the field to a bad status or page, and 401 without a key', async () => {
      const res = await sales('/ingestions?status=done', tenant.key);
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ status: ['The status field must be one of running, completed, failed, cancelled.'] });
      expect((await sales('/ingestions?per_page=0', tenant.key)).status).toBe(422);
      expect((await request(t.http).get(`${SALES_PATH}/ingestions`)).status).toBe(401);
    });

    it('counts the rows of completed runs in the hour they started: GET …/sales/stats', async () => {
      const res = await sales('/stats', tenant.key);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ window: '24h', since: hourOf(Date.now() - 23 * HOUR_MS) });
      expect(res.body.data).toHaveLength(24);
      // The failed run's rows are not counted: nothing of it was kept.
      const completed = await t.sql.rows<{ started_at: Date; inserted: number; updated: number }>(
        `SELECT started_at, inserted, updated FROM ingest_push.sales_ingestions WHERE account_id = $1 AND status = 'completed'`,
        [tenant.accountId],
      );
      const expected = new Map<string, { inserted: number; updated: number; rejected: number }>();
      for (const run of completed) {
        const bucket = expected.get(hourOf(run.started_at.getTime())) ?? { inserted: 0, updated: 0, rejected: 0 };
        expected.set(hourOf(run.started_at.getTime()), { ...bucket, inserted: bucket.inserted + run.inserted, updated: bucket.updated + run.updated });
      }
      const counted = res.body.data.filter((b: { total: number }) => b.total > 0);
      expect(counted).toEqual([...expected].sort().map(([hour, by]) => ({ hour, total: by.inserted + by.updated, by_status: by })));
      expect(counted.reduce((n: number, b: { total: number }) => n + b.total, 0)).toBe(3);
      expect(res.body.data[0]).toEqual({ hour: res.body.since, total: 0, by_status: { inserted: 0, updated: 0, rejected: 0 } });
      const week = await sales('/stats?window=7d', tenant.key);
      expect(week.body.data).toHaveLength(168);
      expect(week.body.data.slice(-24)).toEqual(res.body.data);
      expect((await sales('/stats', other.key)).body.data.every((b: { total: number }) => b.total === 0)).toBe(true);
    });

    it('never answers 5xx to any query of the list or the statistics', async () => {
      const query = fc.dictionary(
        fc.constantFrom('status', 'page', 'per_page', 'window', 'x'),
        fc.oneof(fc.string(), fc.constantFrom('completed', 'failed', '7d', '24h', '1')),
      );
      await fc.assert(
        fc.asyncProperty(query, async (q) => {
          for (const path of ['/ingestions', '/stats']) {
            const res = await sales(`${path}?${new URLSearchParams(q)}`, tenant.key);
            expect([200, 422]).toContain(res.status);
            // A parameter the operation does not take is refused too (`x`, or `status` on the statistics), named.
            if (res.status === 422) expect(Object.keys(res.body.errors).every((f) => Object.keys(q).includes(f))).toBe(true);
          }
        }),
        { numRuns: 40 },
      );
    });
  });

  describe('GET /api/pushm/bulk and GET /api/pushm/stats', () => {
    let batches: string[];
    beforeAll(async () => {
      batches = [];
      for (const pushs of [[pushItem({ ...dueIn(HOUR_MS) }), pushItem({ ...dueIn(HOUR_MS), nm_plataforma: 'ios' })], [pushItem({ ...dueIn(HOUR_MS) })]]) {
        const res = await postBatch(tenant.push, pushs);
        expect(res.status).toBe(202);
        batches.push(res.body.batch_id);
      }
      // Outcomes as the workers record them: the first batch's android push sent now, its ios push invalid 2 hours ago.
      await t.sql.rows(
        `UPDATE ingest_push.push_items SET next_attempt_at = NULL, attempts = 1,
           status = CASE platform WHEN 'android' THEN 'sent' ELSE 'invalid_token' END,
           updated_at = CASE platform WHEN 'android' THEN now() ELSE now() - interval '2 hours' END
         WHERE batch_id = $1`,
        [batches[0]],
      );
      await t.sql.rows(
        `UPDATE ingest_push.push_items SET status = 'failed', next_attempt_at = NULL, updated_at = now() - interval '3 days' WHERE batch_id = $1`,
        [batches[1]],
      );
    });

    it('lists the account batches newest first, each as GET …/bulk/{batchId} without items', async () => {
      const res = await pushGet('/bulk', tenant.push);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ total: 2, current_page: 1, per_page: 15 });
      expect(res.body.data.map((b: { batch_id: string }) => b.batch_id)).toEqual([batches[1], batches[0]]);
      const { items: _items, ...summary } = (await pushGet(`/bulk/${batches[0]}`, tenant.push)).body;
      expect(res.body.data[1]).toEqual(summary);
      expect(res.body.data[1].counts).toEqual({ scheduled: 0, sending: 0, sent: 1, failed: 0, invalid_token: 1, cancelled: 0, capped: 0, quiet: 0 });
      expect((await pushGet('/bulk?per_page=1&page=2', tenant.push)).body.data.map((b: { batch_id: string }) => b.batch_id)).toEqual([batches[0]]);
    });

    it('counts finished pushes per hour of their end and by platform', async () => {
      const res = await pushGet('/stats', tenant.push);
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(24);
      const now = Date.now();
      const zero = { sent: 0, failed: 0, invalid: 0 };
      const ended = Object.fromEntries(
        (
          await t.sql.rows<{ platform: string; updated_at: Date }>('SELECT platform, updated_at FROM ingest_push.push_items WHERE batch_id = $1', [batches[0]])
        ).map((r) => [r.platform, hourOf(r.updated_at.getTime())]),
      );
      const at = (hour: string) => res.body.data.find((b: { hour: string }) => b.hour === hour);
      expect(at(ended.android)).toEqual({
        hour: ended.android,
        total: 1,
        opened: 0,
        by_status: { ...zero, sent: 1 },
        by_platform: { android: { ...zero, sent: 1 }, ios: zero, web: zero },
      });
      expect(at(ended.ios)).toEqual({
        hour: ended.ios,
        total: 1,
        opened: 0,
        by_status: { ...zero, invalid: 1 },
        by_platform: { android: zero, ios: { ...zero, invalid: 1 }, web: zero },
      });
      expect(res.body.data.reduce((n: number, b: { total: number }) => n + b.total, 0)).toBe(2);
      const week = await pushGet('/stats?window=7d', tenant.push);
      expect(week.body).toMatchObject({ window: '7d', since: hourOf(now - 167 * HOUR_MS) });
      expect(week.body.data.reduce((n: number, b: { by_status: { failed: number } }) => n + b.by_status.failed, 0)).toBe(1);
    });

    it('shows another account nothing, and needs the push token', async () => {
      expect((await pushGet('/bulk', other.push)).body).toMatchObject({ total: 0, data: [] });
      expect((await pushGet(`/bulk/${batches[0]}`, other.push)).status).toBe(404);
      expect((await pushGet('/stats', other.push)).body.data.every((b: { total: number }) => b.total === 0)).toBe(true);
      expect((await pushGet('/stats', 'nope')).status).toBe(401);
      expect((await request(t.http).get('/api/pushm/stats').set('apiKey', tenant.key)).status).toBe(401);
    });

    it('grants no cross-origin access: the console is served from the same origin', async () => {
      const res = await pushGet('/stats', tenant.push).set('Origin', 'https://elsewhere.example');
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('answers 422 naming the field to a bad window or page', async () => {
      const res = await pushGet('/stats?window=1h', tenant.push);
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ window: ['The window field must be one of 24h, 7d.'] });
      expect((await pushGet('/bulk?page=0', tenant.push)).body.errors).toHaveProperty('page');
    });

    it('never answers 5xx to any query', async () => {
      const query = fc.dictionary(fc.constantFrom('page', 'per_page', 'window', 'x'), fc.oneof(fc.string(), fc.constantFrom('7d', '24h', '2')));
      await fc.assert(
        fc.asyncProperty(query, async (q) => {
          for (const path of ['/bulk', '/stats']) expect([200, 422]).toContain((await pushGet(`${path}?${new URLSearchParams(q)}`, tenant.push)).status);
        }),
        { numRuns: 40 },
      );
    });
  });
});
