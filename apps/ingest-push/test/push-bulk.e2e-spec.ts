import 'reflect-metadata';
import fc from 'fast-check';
import { dueIn, itemRows, pushItem, request } from './support/push-test';
import { usePush } from './support/use-push';

jest.setTimeout(60_000);

describe('POST /api/pushm/bulk', () => {
  const push = usePush();

  const count = async (table: string) => (await push.app.sql.one<{ n: number }>(`SELECT count(*)::int AS n FROM ingest_push.${table}`))!.n;

  describe('authentication', () => {
    it.each([
      ['no Authorization header', {}],
      ['a made-up token', { authorization: 'Bearer push_7d1c2b7e-1111-4a4a-9b9b-000000000001_nope' }],
      ['another scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
      ['a malformed token', { authorization: 'Bearer nothing-like-a-token' }],
    ])('answers 401 to %s and stores nothing', async (_, headers) => {
      const before = await count('push_batches');
      const res = await request(push.app.http)
        .post('/api/pushm/bulk')
        .set(headers)
        .set('content-type', 'application/json')
        .send({ pushs: [pushItem()] });
      expect(res.status).toBe(401);
      // Whatever was wrong, the answer names the header and form it wants.
      expect(res.body.message).toContain('Authorization');
      expect(res.body.message).toContain('Bearer push_<id>_<secret>');
      expect(await count('push_batches')).toBe(before);
    });

    it('answers 401 to a token whose secret is wrong', async () => {
      const wrong = push.token.slice(0, -4) + (push.token.endsWith('AAAA') ? 'BBBB' : 'AAAA');
      expect((await push.app.post(wrong, [pushItem()])).status).toBe(401);
    });
  });

  describe('content types', () => {
    it.each(['application/hal+json', 'application/json', 'application/json; charset=utf-8'])('accepts %s', async (type) => {
      const res = await push.app.post(push.token, [pushItem()], { 'content-type': type });
      expect(res.status).toBe(202);
    });

    it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/xml'])('answers 415 to %s', async (type) => {
      const res = await request(push.app.http)
        .post('/api/pushm/bulk')
        .set({ authorization: `Bearer ${push.token}`, 'content-type': type })
        .send('pushs=1');
      expect(res.status).toBe(415);
    });
  });

  it('answers 202 with the batch id and, per item, its id and status or its errors', async () => {
    const due = dueIn(3_600_000);
    const res = await push.app.post(push.token, [
      pushItem({ ...due, dt_envio: due.dt_envio, hr_envio: due.hr_envio }),
      pushItem({ dt_envio: '2026-02-30', hr_envio: '10:00:00' }),
      pushItem({ nm_plataforma: 'iOS', ...due }),
      pushItem({ hr_envio: '25:00:00', dt_envio: '2026-05-01', nm_push: '' }),
    ]);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      batch_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      accepted: 2,
      rejected: 2,
      items: [
        { index: 0, id: expect.any(String), status: 'scheduled', due_at: new Date(due.at).toISOString().replace('.000Z', '.000000Z') },
        { index: 1, errors: { dt_envio: ['dt_envio must be a real date YYYY-MM-DD.'] } },
        { index: 2, id: expect.any(String), status: 'scheduled', due_at: expect.any(String) },
        { index: 3, errors: { nm_push: ['nm_push must not be empty.'], hr_envio: ['hr_envio must be a time HH:MM:SS (00:00:00 to 23:59:59).'] } },
      ],
    });
    const rows = await itemRows(push.app.sql, res.body.batch_id);
    expect(rows.map((r) => r.id)).toEqual([res.body.items[0].id, res.body.items[2].id]);
  });

  it('refuses a date past the scheduling horizon for that item alone, even one past year 9999 in UTC', async () => {
    const res = await push.app.post(push.token, [
      pushItem(dueIn(3_600_000)),
      pushItem({ dt_envio: '9999-12-31', hr_envio: '23:00:00' }),
      pushItem({ dt_envio: '2099-01-01', hr_envio: '00:00:00' }),
    ]);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ accepted: 1, rejected: 2 });
    expect(res.body.items[1]).toEqual({ index: 1, errors: { dt_envio: [expect.stringContaining('9999-12-31 23:00:00 is more than 3653 days ahead')] } });
    expect(res.body.items[2].errors.dt_envio).toHaveLength(1);
    expect(await itemRows(push.app.sql, res.body.batch_id)).toHaveLength(1);
  });

  it('fills the variables into title and message (campos/valor and valor_json)', async () => {
    const res = await push.app.post(push.token, [
      pushItem({ ...dueIn(3_600_000), campos: 'nome, cupom', valor: 'Bia, DESC15' }),
      pushItem({ ...dueIn(3_600_000), valor_json: '{"nome":"Caio","cupom":20}', campos: 'ignored', valor: '' }),
    ]);
    expect(res.status).toBe(202);
    const rows = await push.app.sql.rows<{ title: string; body: string }>(
      `SELECT title, body FROM ingest_push.push_items WHERE batch_id = $1 ORDER BY position`,
      [res.body.batch_id],
    );
    expect(rows).toEqual([
      { title: 'Oi Bia', body: 'Seu cupom: DESC15' },
      { title: 'Oi Caio', body: 'Seu cupom: 20' },
    ]);
  });

  describe('?dry_run=true', () => {
    const dryRun = (pushs: unknown[], query = '?dry_run=true', headers: Record<string, string> = {}) =>
      request(push.app.http)
        .post(`/api/pushm/bulk${query}`)
        .set({ authorization: `Bearer ${push.token}`, 'content-type': 'application/json', ...headers })
        .send({ pushs });

    it('answers 200 with what each valid item would send, and the errors of the others, storing and sending nothing', async () => {
      const due = dueIn(3_600_000);
      const batches = await count('push_batches');
      const items = await count('push_items');
      const res = await dryRun([
        pushItem({ nm_push: 'phone-1', valor_json: '{"nome":"Ana","cupom":"X10"}', ...due }),
        pushItem({ nm_mensagem: 'Falta {{codigo}}' }),
        pushItem({ nm_push: 'phone-2', nm_plataforma: 'iOS', nm_titulo: '', url_scheme: null, campos: 'cupom', valor: 'Z9', nm_mensagem: '{{ cupom }} é seu' }),
      ]);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        dry_run: true,
        accepted: 2,
        rejected: 1,
        items: [
          {
            index: 0,
            status: 'scheduled',
            platform: 'android',
            nm_push: 'phone-1',
            title: 'Oi Ana',
            body: 'Seu cupom: X10',
            url_scheme: 'app://promo',
            due_at: new Date(due.at).toISOString().replace('.000Z', '.000000Z'),
          },
          { index: 1, errors: { nm_mensagem: ['No value for {{codigo}}.'] } },
          {
            index: 2,
            status: 'scheduled',
            platform: 'ios',
            nm_push: 'phone-2',
            title: '',
            body: 'Z9 é seu',
            url_scheme: null,
            due_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
          },
        ],
      });
      expect({ batches: await count('push_batches'), items: await count('push_items') }).toEqual({ batches, items });
    });

    it('shows the same text the real request then stores, and leaves its Idempotency-Key free', async () => {
      const item = pushItem({ ...dueIn(3_600_000), valor_json: '{"nome":"Bia","cupom":7}' });
      const key = `dry-${Math.random().toString(36).slice(2)}`;
      const preview = await dryRun([item], '?dry_run=true', { 'idempotency-key': key }).expect(200);
      const real = await push.app.post(push.token, [item], { 'idempotency-key': key }).expect(202);
      const stored = await request(push.app.http).get(`/api/pushm/bulk/${real.body.batch_id}`).set('authorization', `Bearer ${push.token}`).expect(200);
      const [shown] = stored.body.items.data;
      expect({ title: shown.title, body: shown.body, due_at: shown.due_at }).toEqual({
        title: preview.body.items[0].title,
        body: preview.body.items[0].body,
        due_at: preview.body.items[0].due_at,
      });
      expect(shown).toMatchObject({ title: 'Oi Bia', body: 'Seu cupom: 7' });
    });

    it('answers 422 when no item is valid, and to a dry_run that is neither true nor false', async () => {
      const none = await dryRun([pushItem({ nm_plataforma: 'windows' })]).expect(422);
      expect(none.body).toMatchObject({ accepted: 0, rejected: 1, items: [{ index: 0, errors: { nm_plataforma: expect.any(Array) } }] });
      const bad = await dryRun([pushItem()], '?dry_run=yes').expect(422);
      expect(bad.body.errors).toEqual({ dry_run: ['dry_run must be true or false.'] });
      await dryRun([pushItem({ ...dueIn(3_600_000) })], '?dry_run=false').expect(202);
    });
  });

  it('refuses an item whose placeholder has no value, naming it', async () => {
    const res = await push.app.post(push.token, [pushItem(), pushItem({ nm_mensagem: 'Falta {{codigo}}' })]);
    expect(res.status).toBe(202);
    expect(res.body.items[1]).toEqual({ index: 1, errors: { nm_mensagem: ['No value for {{codigo}}.'] } });
  });

  it('answers 422 with every item error and stores nothing when no item is valid', async () => {
    const before = await count('push_batches');
    const res = await push.app.post(push.token, [pushItem({ nm_plataforma: 'windows' }), pushItem({ valor_json: 'not json' })]);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      accepted: 0,
      rejected: 2,
      items: [
        { index: 0, errors: { nm_plataforma: expect.any(Array) } },
        { index: 1, errors: { valor_json: expect.any(Array) } },
      ],
    });
    expect(await count('push_batches')).toBe(before);
  });

  it.each([
    ['pushs missing', '{}', 422],
    ['pushs not an array', '{"pushs":{"a":1}}', 422],
    ['pushs empty', '{"pushs":[]}', 422],
    ['malformed JSON', '{"pushs":[', 400],
    ['a top-level array', '[1,2]', 422],
  ])('answers %s with a 4xx and stores nothing', async (_, body, status) => {
    const before = await count('push_batches');
    const res = await request(push.app.http)
      .post('/api/pushm/bulk')
      .set({ authorization: `Bearer ${push.token}`, 'content-type': 'application/json' })
      .send(body);
    expect(res.status).toBe(status);
    expect(res.body.message).toEqual(expect.any(String));
    expect(await count('push_batches')).toBe(before);
  });

  it('takes 10,000 items in one request', async () => {
    const due = dueIn(3_600_000);
    const items = Array.from({ length: 10_000 }, (_, i) => ({ nm_push: `big-${i}`, nm_mensagem: 'Hi', nm_plataforma: i % 2 ? 'ios' : 'android', ...due }));
    const res = await push.app.post(push.token, items);
    expect(res.status).toBe(202);
    expect(res.body.accepted).toBe(10_000);
    await request(push.app.http).delete(`/api/pushm/bulk/${res.body.batch_id}`).set('authorization', `Bearer ${push.token}`).expect(200);
  });

  it('answers 413 to 100,000 items, naming the byte and the item limits, and stores nothing', async () => {
    const before = await count('push_items');
    const items = Array.from({ length: 100_000 }, (_, i) => ({ nm_push: `d${i}`, nm_mensagem: 'x', nm_plataforma: 'ios' }));
    const res = await push.app.post(push.token, items);
    expect(res.status).toBe(413);
    expect(res.body.message).toMatch(/over \d+ bytes \(BODY_LIMIT_BYTES\)/);
    expect(res.body.message).toContain('at most 10000 pushes (PUSH_MAX_ITEMS)');
    expect(await count('push_items')).toBe(before);
  });

  it('answers 413 to one item more than the maximum', async () => {
    const items = Array.from({ length: 10_001 }, (_, i) => ({ nm_push: `d${i}`, nm_mensagem: 'x', nm_plataforma: 'ios' }));
    const res = await push.app.post(push.token, items);
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ message: 'At most 10000 pushes per request (PUSH_MAX_ITEMS); this one has 10001.', max_items: 10_000 });
  });

  describe('Idempotency-Key', () => {
    it('answers a repeated request with the first batch and schedules nothing more', async () => {
      const key = `key-${Math.random()}`;
      const items = [pushItem({ ...dueIn(3_600_000) }), pushItem({ nm_plataforma: 'x' })];
      const first = await push.app.post(push.token, items, { 'idempotency-key': key });
      const second = await push.app.post(push.token, items, { 'idempotency-key': key });
      expect(first.status).toBe(202);
      expect(second.status).toBe(202);
      expect(second.body).toEqual(first.body);
      expect(await push.app.sql.one(`SELECT count(*)::int AS n FROM ingest_push.push_batches WHERE idempotency_key = $1`, [key])).toEqual({ n: 1 });
    });

    it('gives concurrent requests with one key one batch', async () => {
      const key = `race-${Math.random()}`;
      const items = [pushItem({ ...dueIn(3_600_000) })];
      const answers = await Promise.all(Array.from({ length: 5 }, () => push.app.post(push.token, items, { 'idempotency-key': key })));
      expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202, 202]);
      expect(new Set(answers.map((a) => a.body.batch_id)).size).toBe(1);
    });

    it('refuses the same key with another body', async () => {
      const key = `reuse-${Math.random()}`;
      await push.app.post(push.token, [pushItem()], { 'idempotency-key': key }).expect(202);
      const res = await push.app.post(push.token, [pushItem()], { 'idempotency-key': key });
      expect(res.status).toBe(422);
      expect(res.body.message).toMatch(/Idempotency-Key/);
    });

    it('keeps keys per account', async () => {
      const key = `shared-${Math.random()}`;
      const items = [pushItem({ ...dueIn(3_600_000) })];
      const mine = await push.app.post(push.token, items, { 'idempotency-key': key });
      const theirs = await push.app.post(await push.app.token(), items, { 'idempotency-key': key });
      expect(theirs.status).toBe(202);
      expect(theirs.body.batch_id).not.toBe(mine.body.batch_id);
    });

    it('refuses a key that is too long or not visible ASCII with 400 (the one key rule of libs/server)', async () => {
      const message = 'The Idempotency-Key header must be 1 to 255 visible ASCII characters.';
      for (const key of ['x'.repeat(256), 'a b']) {
        const res = await push.app.post(push.token, [pushItem()], { 'idempotency-key': key });
        expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { message, errors: { 'Idempotency-Key': [message] } } });
      }
    });
  });

  it('never answers 5xx and stores nothing for a refused request, whatever the body', async () => {
    const field = fc.constantFrom(
      'nm_envio',
      'nm_push',
      'nm_titulo',
      'nm_mensagem',
      'url_scheme',
      'dt_envio',
      'hr_envio',
      'campos',
      'valor',
      'valor_json',
      'nm_plataforma',
      'timezone',
      'other',
      'valueOf',
      'toString',
    );
    const item = fc.oneof(fc.dictionary(field, fc.oneof(fc.string(), fc.jsonValue())), fc.jsonValue());
    const body = fc.oneof(
      fc.record({ pushs: fc.array(item, { maxLength: 5 }) }),
      fc.jsonValue(),
      fc.string().map((s) => ({ raw: s })),
    );
    await fc.assert(
      fc.asyncProperty(body, async (value) => {
        const before = await count('push_items');
        const raw = typeof value === 'object' && value !== null && 'raw' in value ? String((value as { raw: string }).raw) : JSON.stringify(value);
        const res = await request(push.app.http)
          .post('/api/pushm/bulk')
          .set({ authorization: `Bearer ${push.token}`, 'content-type': 'application/hal+json' })
          .send(raw);
        expect(res.status).toBeLessThan(500);
        if (res.status !== 202) expect(await count('push_items')).toBe(before);
        else expect(await count('push_items')).toBe(before + res.body.accepted);
      }),
      { numRuns: 60 },
    );
  });
});

describe('GET and DELETE /api/pushm/bulk/{batch_id}', () => {
  const push = usePush();

  const get = (id: string, query = '', as = push.token) => request(push.app.http).get(`/api/pushm/bulk/${id}${query}`).set('authorization', `Bearer ${as}`);
  const cancel = (id: string, as = push.token) => request(push.app.http).delete(`/api/pushm/bulk/${id}`).set('authorization', `Bearer ${as}`);

  it('gives counts by status and the items page by page', async () => {
    const due = dueIn(3_600_000);
    const posted = await push.app.post(
      push.token,
      Array.from({ length: 20 }, (_, i) => pushItem({ nm_push: `page-${i}`, ...due })).concat([pushItem({ nm_plataforma: '?' })]),
    );
    const res = await get(posted.body.batch_id, '?page=2&per_page=15');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      batch_id: posted.body.batch_id,
      accepted: 20,
      rejected: 1,
      cancelled_at: null,
      counts: { scheduled: 20, sending: 0, sent: 0, failed: 0, invalid_token: 0, cancelled: 0 },
      items: { current_page: 2, per_page: 15, total: 20, last_page: 2, from: 16, to: 20 },
    });
    expect(res.body.items.data).toHaveLength(5);
    expect(res.body.items.data[0]).toEqual({
      index: 15,
      id: posted.body.items[15].id,
      status: 'scheduled',
      platform: 'android',
      nm_push: 'page-15',
      title: 'Oi Ana',
      body: 'Seu cupom: X10',
      url_scheme: 'app://promo',
      due_at: posted.body.items[15].due_at,
      attempts: 0,
      sent_at: null,
      provider_id: null,
      error: null,
    });
  });

  it('cancels what has not been sent: those pushes are never sent', async () => {
    const due = dueIn(2_000);
    const posted = await push.app.post(push.token, [pushItem({ ...due }), pushItem({ ...due, nm_plataforma: 'ios' })]);
    const res = await cancel(posted.body.batch_id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      batch_id: posted.body.batch_id,
      cancelled_now: 2,
      cancelled_at: expect.any(String),
      counts: { cancelled: 2, scheduled: 0 },
    });
    // Past the due time, a later batch is sent while the cancelled one stays cancelled.
    const later = await push.app.post(push.token, [pushItem({ ...dueIn(2_500) })]);
    await push.app.until(
      'the later push',
      () => itemRows(push.app.sql, later.body.batch_id),
      (rows) => rows[0].status === 'sent',
    );
    expect((await itemRows(push.app.sql, posted.body.batch_id)).map((r) => [r.status, r.attempts])).toEqual([
      ['cancelled', 0],
      ['cancelled', 0],
    ]);
    expect((await cancel(posted.body.batch_id)).body.cancelled_now).toBe(0);
  });

  it('shows another account a 404 for the batch, on GET and DELETE', async () => {
    const posted = await push.app.post(push.token, [pushItem({ ...dueIn(3_600_000) })]);
    const other = await push.app.token();
    expect((await get(posted.body.batch_id, '', other)).status).toBe(404);
    expect((await cancel(posted.body.batch_id, other)).status).toBe(404);
    expect((await get(posted.body.batch_id)).body.counts.scheduled).toBe(1);
  });

  it.each(['not-a-uuid', '00000000-0000-4000-8000-000000000000'])('answers 404 for the batch id %s', async (id) => {
    const res = await get(id);
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('Push batch not found.');
  });

  it('answers 422 to a bad page', async () => {
    const posted = await push.app.post(push.token, [pushItem({ ...dueIn(3_600_000) })]);
    expect((await get(posted.body.batch_id, '?per_page=1000')).status).toBe(422);
  });

  it('never answers 5xx to any batch id or query', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1 }), fc.dictionary(fc.constantFrom('page', 'per_page', 'x'), fc.string()), async (id, query) => {
        const res = await get(encodeURIComponent(id), `?${new URLSearchParams(query)}`);
        expect(res.status).toBeLessThan(500);
        expect((await cancel(encodeURIComponent(id))).status).toBeLessThan(500);
      }),
      { numRuns: 40 },
    );
  });
});
