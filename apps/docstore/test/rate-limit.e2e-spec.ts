import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { request, startDocstore, type Client, type Docstore, useDocstore } from './support/docstore-test';

const limitOf = (res: Response) => ({
  limit: Number(res.headers['x-ratelimit-limit']),
  remaining: Number(res.headers['x-ratelimit-remaining']),
  reset: Number(res.headers['x-ratelimit-reset']),
});

/**
 * Fixed windows roll over every minute: run `attempt` again (once) if its responses
 * straddle two windows, so counts can be asserted exactly without timing assumptions.
 */
async function inOneWindow(attempt: () => Promise<Response[]>): Promise<Response[]> {
  for (let i = 0; ; i++) {
    const responses = await attempt();
    if (new Set(responses.map((r) => r.headers['x-ratelimit-reset'])).size === 1 || i === 1) return responses;
  }
}

function expect429(res: Response): void {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({ message: expect.any(String), retry_after: expect.any(Number) });
  expect(Number.isInteger(res.body.retry_after)).toBe(true);
  expect(res.body.retry_after).toBeGreaterThanOrEqual(1);
  expect(res.body.retry_after).toBeLessThanOrEqual(61);
  expect(res.headers['retry-after']).toBe(String(res.body.retry_after));
}

describe('rate limits (defaults)', () => {
  let ds: Docstore;
  let c: Client;
  useDocstore({ app: (d) => (ds = d), client: (x) => (c = x) });

  it('puts the headers on every authenticated response, counting down within the window', async () => {
    const responses = await inOneWindow(async () => {
      c = await ds.newClient();
      return [
        await request(ds.http).get(c.doc()).set(c.auth).expect(200),
        await request(ds.http).get(`${c.doc()}/missing`).set(c.auth).expect(404),
        await request(ds.http).post(`${c.doc()}/k`).set(c.auth).send({}).expect(422),
      ];
    });
    const nowSeconds = Date.now() / 1000;
    responses.forEach((res, i) => {
      const { limit, remaining, reset } = limitOf(res);
      expect(limit).toBe(1000);
      expect(remaining).toBe(999 - i);
      expect(reset % 60).toBe(0);
      expect(reset).toBeGreaterThan(nowSeconds - 5);
      expect(reset).toBeLessThanOrEqual(Math.ceil(nowSeconds) + 60);
    });
  });

  it('also puts them on 401 and 403 responses', async () => {
    expect(limitOf(await request(ds.http).get(c.doc()).expect(401)).limit).toBe(60);
    const reader = await ds.mintToken(c.id, ['document:read']);
    expect(limitOf(await request(ds.http).delete(`${c.doc()}/k`).set('Authorization', `Bearer ${reader}`).expect(403)).limit).toBe(1000);
  });

  it('counts token endpoints against RATE_LIMIT_AUTH_PER_MINUTE', async () => {
    const res = await request(ds.http).get(`/api/v1/client/${c.id}/tokens`).set(c.auth).expect(200);
    expect(limitOf(res)).toMatchObject({ limit: 60, remaining: 59 });
  });

  it('leaves public routes alone', async () => {
    const res = await request(ds.http).get('/health').expect(200);
    expect(res.headers).not.toHaveProperty('x-ratelimit-limit');
  });
});

describe('rate limits (configured)', () => {
  let ds: Docstore;
  let c: Client;
  const tokensUrl = () => `/api/v1/client/${c.id}/tokens`;

  beforeAll(async () => {
    ds = await startDocstore({ RATE_LIMIT_PER_MINUTE: '3', RATE_LIMIT_AUTH_PER_MINUTE: '2' });
  });
  afterAll(() => ds.close());

  it('answers 429 with retry_after and Retry-After once RATE_LIMIT_PER_MINUTE is spent', async () => {
    const responses = await inOneWindow(async () => {
      c = await ds.newClient();
      const out: Response[] = [];
      for (let i = 0; i < 5; i++) out.push(await request(ds.http).get(c.doc()).set(c.auth));
      return out;
    });
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 429, 429]);
    expect(responses.map((r) => limitOf(r).remaining)).toEqual([2, 1, 0, 0, 0]);
    expect429(responses[3]);
    expect(limitOf(responses[3]).limit).toBe(3);
  });

  it('limits token endpoints with RATE_LIMIT_AUTH_PER_MINUTE, separately from other routes', async () => {
    const responses = await inOneWindow(async () => {
      c = await ds.newClient();
      return [
        await request(ds.http).get(tokensUrl()).set(c.auth),
        await request(ds.http)
          .post(tokensUrl())
          .set(c.auth)
          .send({ name: 'x', scopes: ['document:read'] }),
        await request(ds.http).get(tokensUrl()).set(c.auth),
        await request(ds.http).get(c.doc()).set(c.auth),
      ];
    });
    expect(responses.map((r) => r.status)).toEqual([200, 201, 429, 200]);
    expect(limitOf(responses[0])).toMatchObject({ limit: 2, remaining: 1 });
    expect429(responses[2]);
    expect(limitOf(responses[3])).toMatchObject({ limit: 3, remaining: 2 });
  });

  it('counts each token separately', async () => {
    const responses = await inOneWindow(async () => {
      c = await ds.newClient();
      const second = { Authorization: `Bearer ${await ds.mintToken(c.id, ['*'])}` };
      const out: Response[] = [];
      for (let i = 0; i < 4; i++) out.push(await request(ds.http).get(c.doc()).set(c.auth));
      out.push(await request(ds.http).get(c.doc()).set(second));
      return out;
    });
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 429, 200]);
    expect(limitOf(responses[4]).remaining).toBe(2);
  });
});

describe('rate limits shared by two instances', () => {
  let one: Docstore;
  let two: Docstore;

  beforeAll(async () => {
    const prefix = `test:${process.env.TEST_RUN_ID}:shared-${randomUUID().slice(0, 8)}:`;
    one = await startDocstore({ RATE_LIMIT_PER_MINUTE: '3', REDIS_PREFIX: prefix });
    two = await startDocstore({ RATE_LIMIT_PER_MINUTE: '3', REDIS_PREFIX: prefix });
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
  });

  it('shares one count through Redis', async () => {
    const responses = await inOneWindow(async () => {
      const c = await one.newClient();
      return [
        await request(one.http).get(c.doc()).set(c.auth),
        await request(two.http).get(c.doc()).set(c.auth),
        await request(one.http).get(c.doc()).set(c.auth),
        await request(two.http).get(c.doc()).set(c.auth),
      ];
    });
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(responses.map((r) => limitOf(r).remaining)).toEqual([2, 1, 0, 0]);
  });
});

describe('failed authentications per address', () => {
  let ds: Docstore;

  beforeAll(async () => {
    ds = await startDocstore({ RATE_LIMIT_AUTH_PER_MINUTE: '3' });
  });
  afterAll(() => ds.close());

  it('answers 429 to failures past the limit, yet never refuses a good token from that address', async () => {
    const good = await ds.newClient();
    const bad = { Authorization: `Bearer ${good.token.split('|')[0]}|${'x'.repeat(40)}` };
    const attempts: Response[] = [];
    // normally the 4th attempt; one more window is allowed for if the minute rolls over meanwhile
    while (attempts.length < 8 && attempts.at(-1)?.status !== 429) attempts.push(await request(ds.http).get(good.doc()).set(bad));
    const locked = attempts.at(-1)!;
    expect429(locked);
    const sameWindow = attempts.filter((r) => r.headers['x-ratelimit-reset'] === locked.headers['x-ratelimit-reset']);
    expect(sameWindow.map((r) => r.status)).toEqual([401, 401, 401, 429]);
    expect(sameWindow.map((r) => limitOf(r).remaining)).toEqual([2, 1, 0, 0]);
    expect(sameWindow[0].body).toEqual({ error: 'Unauthorized', message: expect.any(String) });

    // Behind one ingress every client shares an address: valid credentials must still pass (issue 7).
    await request(ds.http).get(good.doc()).set(good.auth).expect(200);
    const refused = await request(ds.http).get(good.doc()).set(bad);
    expect429(refused);
    expect(limitOf(refused)).toEqual({ limit: 3, remaining: 0, reset: limitOf(locked).reset });
    expect429(await request(ds.http).get(good.doc()));
    await request(ds.http).get(good.doc()).set(good.auth).expect(200);
  });
});

describe('rate limits counted locally between syncs (issue 8)', () => {
  const started: Docstore[] = [];
  const pair = async (env: Record<string, string>): Promise<[Docstore, Docstore]> => {
    const prefix = `test:${process.env.TEST_RUN_ID}:local-${randomUUID().slice(0, 8)}:`;
    const both = [await startDocstore({ ...env, REDIS_PREFIX: prefix }), await startDocstore({ ...env, REDIS_PREFIX: prefix })];
    started.push(...both);
    return both as [Docstore, Docstore];
  };
  afterAll(async () => {
    for (const ds of started) await ds.close();
  });

  it('keeps a small limit (5/min) exact across two instances', async () => {
    const [one, two] = await pair({ RATE_LIMIT_PER_MINUTE: '5' });
    const responses = await inOneWindow(async () => {
      const c = await one.newClient();
      const out: Response[] = [];
      for (let i = 0; i < 8; i++)
        out.push(
          await request((i % 2 ? two : one).http)
            .get(c.doc())
            .set(c.auth),
        );
      return out;
    });
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    expect(responses.map((r) => limitOf(r).remaining)).toEqual([4, 3, 2, 1, 0, 0, 0, 0]);
  });

  it('overshoots a larger limit across two instances by at most one local share, and agrees after a sync', async () => {
    // 100/min with a 5 % share: each instance counts up to 5 hits on its own between syncs.
    const [one, two] = await pair({ RATE_LIMIT_PER_MINUTE: '100', RATE_LIMIT_LOCAL_PERCENT: '5', RATE_LIMIT_SYNC_MS: '50' });
    const responses = await inOneWindow(async () => {
      const c = await one.newClient();
      const out: Response[] = [];
      for (let i = 0; i < 120; i++)
        out.push(
          await request((i % 2 ? two : one).http)
            .get(`${c.doc()}/none`)
            .set(c.auth),
        );
      await new Promise((resolve) => setTimeout(resolve, 200)); // past a sync on both
      out.push(await request(one.http).get(c.doc()).set(c.auth), await request(two.http).get(c.doc()).set(c.auth));
      return out;
    });
    const admitted = responses.slice(0, 120).filter((r) => r.status === 404).length;
    expect(admitted).toBeGreaterThanOrEqual(100);
    expect(admitted).toBeLessThanOrEqual(100 + 5);
    expect(responses.slice(-2).map((r) => r.status)).toEqual([429, 429]);
    // Headers never claim more than the limit, and count down to 0.
    expect(Math.max(...responses.map((r) => limitOf(r).remaining))).toBeLessThanOrEqual(99);
    expect(limitOf(responses[119]).remaining).toBe(0);
  });
});
