import { Sql } from '@app/database';
import fc from 'fast-check';
import { docBody, request, startDocstore, type Client, type Docstore } from './support/docstore-test';

/**
 * Generated garbage thrown at every docstore endpoint. Whatever comes in, the service
 * must answer without a 5xx, every error must be JSON with a string `message` (401/403
 * also `error`), and a refused request must not have changed anything the client owns.
 * Failures print fast-check's seed and the shrunk request.
 */

type Method = 'get' | 'post' | 'put' | 'delete' | 'patch';
type Res = request.Response;

interface Req {
  method: Method;
  path: string;
  /** Serialised with JSON.stringify and sent as application/json. */
  body?: unknown;
  /** Sent as is, as application/json. */
  raw?: string;
  headers?: Record<string, string>;
  /** Send the all-scopes token (default true). */
  auth?: boolean;
}

/** Runs per property; FC_RUNS=500 for a longer hunt. */
const RUNS = Number(process.env.FC_RUNS ?? 30);
/** Jest timeout of a property; fast-check stops early enough that no run outlives its test. */
const TIMEOUT = 60_000 * Math.max(1, RUNS / 30);
fc.configureGlobal({ interruptAfterTimeLimit: TIMEOUT - 15_000, markInterruptAsFailure: false });
const MAX_TTL = 10 * 365 * 24 * 3600;
const HIGH_LIMITS = { RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_AUTH_PER_MINUTE: '1000000' };

// ---------------------------------------------------------------------------------------
// Generators

/** Characters that tend to break things: NUL and control characters, lone surrogates, separators, quotes. */
const NASTY_CHARS = [
  '\u0000',
  '\u0001',
  '\u001f',
  '\u007f',
  '\ud800',
  '\udfff',
  '\ufeff',
  '\u202e',
  '\u2028',
  '/',
  '\\',
  '%',
  '"',
  "'",
  '.',
  '*',
  '?',
  '#',
  '&',
  '=',
  '+',
  ' ',
  '[',
  ']',
  '{',
  '}',
  '😀',
  'é',
  '\n',
];
const NASTY_STRINGS = [
  '',
  'schema',
  'bulk',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'a'.repeat(256),
  'é'.repeat(300),
  'x'.repeat(1000),
  '1e999999',
  '-0',
  'null',
  'true',
  '%00',
  '%2F',
  '..',
  '.',
  "'; drop table docstore.documents; --",
  '$1',
  '\\u0000',
];
const unit = fc.oneof(
  fc.constantFrom(...NASTY_CHARS),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }),
);
const nastyString = (maxLength = 24): fc.Arbitrary<string> =>
  fc.oneof({ weight: 4, arbitrary: fc.string({ unit, maxLength }) }, { weight: 1, arbitrary: fc.constantFrom(...NASTY_STRINGS) });

/** JSON values (keys and strings full of nasty characters); `__proto__` keys are left out, see the example test. */
const jsonKey = nastyString(8).filter((k) => k !== '__proto__');
const scalar = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), nastyString(16));
const { json } = fc.letrec<{ json: unknown }>((tie) => ({
  json: fc.oneof({ maxDepth: 3, depthSize: 'small' }, scalar, fc.array(tie('json'), { maxLength: 3 }), fc.dictionary(jsonKey, tie('json'), { maxKeys: 3 })),
}));
const jsonObject = fc.dictionary(jsonKey, json, { maxKeys: 4 });
const nonString = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(json, { maxLength: 3 }), jsonObject);
const nonObject = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  nastyString(),
  fc.array(json, { maxLength: 3 }),
);
const badTtl = fc.oneof(
  fc.integer({ max: 0 }),
  fc.integer({ min: MAX_TTL + 1 }),
  fc.double({ min: 0.001, max: 1e6, noNaN: true }).filter((x) => !Number.isInteger(x)),
  nastyString(),
  fc.boolean(),
  fc.array(fc.integer(), { maxLength: 2 }),
  jsonObject,
);
/** Never an ISO 8601 date: no digits at all, impossible calendar dates, or not a string. */
const badDate = fc.oneof(
  fc.string({ unit: fc.constantFrom(...'abcTZxyz:-/ .'), maxLength: 20 }),
  fc.constantFrom('2020-13-01', '2021-02-30T00:00:00Z', '2020-01-01T25:00:00Z', '01/02/2030', 'now', '2030-01-01T00:00:00ZZ', '\u00002030-01-01'),
  fc.integer(),
  fc.boolean(),
  fc.array(fc.integer(), { maxLength: 2 }),
  jsonObject,
);
const unknownField = (allowed: string[]) => fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !allowed.includes(k) && k !== '__proto__');

/** Percent-encodes every UTF-8 byte, so any string (even one with lone surrogates) makes a valid URL. */
const pct = (s: string): string => [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');
/** A path segment: encoded strings, raw bytes (often invalid UTF-8), broken escapes, very long ones. */
const segment = fc.oneof(
  fc.string({ unit, minLength: 1, maxLength: 30 }).map(pct),
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 30 }).map(encodeURIComponent),
  fc.uint8Array({ minLength: 1, maxLength: 12 }).map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')),
  fc.constantFrom(
    '%',
    '%zz',
    '%2F',
    'a%2Fb',
    '%00',
    'a%0Ab',
    '%E0%A4%A',
    '%C0%AF',
    'x'.repeat(1000),
    '%C3%A9'.repeat(300),
    'schema',
    'bulk',
    'tokens',
    'history',
    'seed-1',
    '%20',
    '~',
    '0',
    '-1',
    '99999999999999999999',
  ),
);
const decodeOrNull = (s: string): string | null => {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
};

/** Header values node's HTTP client accepts: tab, printable ASCII and Latin-1. */
const headerChar = fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.constant(9), fc.integer({ min: 0x80, max: 0xff })).map((cp) => String.fromCharCode(cp));
const headerValue = fc.string({ unit: headerChar, maxLength: 60 });

/** Request bodies that are not JSON (body-parser must answer 400). */
const malformedJson = fc.oneof(
  fc.tuple(fc.constantFrom(..."abcdeghijkmopqrsuvwxyz}]),:'<#"), fc.string({ unit, maxLength: 30 })).map(([first, rest]) => first + rest),
  jsonObject.filter((o) => Object.keys(o).length > 0).map((o) => JSON.stringify(o).slice(0, -1)),
  fc.tuple(jsonObject, fc.constantFrom('}', ']', ',', 'x', '{')).map(([o, tail]) => JSON.stringify(o) + tail),
  fc.constantFrom(
    '{',
    '[',
    '{"a":}',
    '{"a" 1}',
    "{'a':1}",
    '{"a":1,}',
    '[1,]',
    'undefined',
    'NaN',
    '{"a":NaN}',
    '{"a":01}',
    '{"a":"\u0000"',
    '\u0000',
    '{"data":{"a":1}',
  ),
);

// ---------------------------------------------------------------------------------------

describe('docstore: generated bad input', () => {
  let ds: Docstore;
  let c: Client;
  let other: Client;
  /** A second token of c, the target of token updates. */
  let spareTokenId: string;
  /** History entries of seed-1. */
  let seedHistory: string[];
  /** A webhook of c (on a public address nobody answers at: its deliveries stay in the log). */
  let seedWebhookId: string;
  let counter = 0;
  const fresh = (prefix: string): string => `${prefix}-${++counter}`;

  const tokens = () => `/api/v1/client/${c.id}/tokens`;
  const webhooks = () => `/api/v1/client/${c.id}/webhooks`;

  /** Fingerprints of everything c and `other` own (documents, history, schemas, tokens), compared by refused requests. */
  async function snapshot(): Promise<unknown> {
    return ds.get(Sql).one(
      `SELECT
         (SELECT md5(coalesce(string_agg(row(client_id, environment, context, type, key, version, data, expires_at, deleted_at)::text, '|'
                 ORDER BY client_id, environment, context, type, key), '')) FROM docstore.documents WHERE client_id = ANY($1)) AS documents,
         (SELECT count(*)::int FROM docstore.document_history WHERE client_id = ANY($1)) AS history,
         (SELECT md5(coalesce(string_agg(row(client_id, environment, context, type, schema, updated_at)::text, '|'
                 ORDER BY client_id, environment, context, type), '')) FROM docstore.schemas WHERE client_id = ANY($1)) AS schemas,
         (SELECT md5(coalesce(string_agg(row(id, name, scopes, status, expires_at, updated_at)::text, '|' ORDER BY id), ''))
            FROM docstore.tokens WHERE client_id = ANY($1)) AS tokens,
         (SELECT md5(coalesce(string_agg(row(id, url, events, status, secret, previous_secret, updated_at)::text, '|' ORDER BY id), ''))
            FROM docstore.webhooks WHERE owner::uuid = ANY($1)) AS webhooks,
         (SELECT md5(coalesce(string_agg(row(id, status, attempts, next_attempt_at)::text, '|' ORDER BY id), ''))
            FROM docstore.webhook_deliveries WHERE owner::uuid = ANY($1)) AS deliveries`,
      [[c.id, other.id]],
    );
  }

  async function call(r: Req): Promise<Res> {
    let q = request(ds.http)[r.method](r.path);
    if (r.auth !== false) q = q.set(c.auth);
    for (const [name, value] of Object.entries(r.headers ?? {})) q = q.set(name, value);
    if (r.raw !== undefined) q = q.set('Content-Type', 'application/json').send(r.raw);
    else if (r.body !== undefined) q = q.set('Content-Type', 'application/json').send(JSON.stringify(r.body));
    return q;
  }

  const describeReq = (r: Req, res: Res): string =>
    `${r.method.toUpperCase()} ${r.path.slice(0, 300)} ${r.raw ?? JSON.stringify(r.body) ?? ''}`.slice(0, 600) + ` -> ${res.status} ${res.text?.slice(0, 300)}`;

  /** No 5xx; errors are JSON with a string message (and `error` on 401/403). */
  function assertWellFormed(r: Req, res: Res): void {
    if (res.status >= 500) throw new Error(`server error: ${describeReq(r, res)}`);
    if (res.status < 400) return;
    if (!/^application\/json/.test(res.headers['content-type'] ?? '')) throw new Error(`error body is not JSON: ${describeReq(r, res)}`);
    if (typeof res.body?.message !== 'string' || res.body.message === '') throw new Error(`error body has no message: ${describeReq(r, res)}`);
    if (res.status === 401 && res.body.error !== 'Unauthorized') throw new Error(`401 without error: ${describeReq(r, res)}`);
    if (res.status === 403 && res.body.error !== 'Forbidden') throw new Error(`403 without error: ${describeReq(r, res)}`);
  }

  /** Sends the request; never a 5xx, and a refused request changes nothing. */
  async function safely(r: Req, expected?: number[]): Promise<Res> {
    const before = await snapshot();
    const res = await call(r);
    assertWellFormed(r, res);
    if (expected && !expected.includes(res.status)) throw new Error(`expected ${expected.join('|')}: ${describeReq(r, res)}`);
    if (res.status >= 400) {
      const after = await snapshot();
      try {
        expect(after).toEqual(before);
      } catch (error) {
        throw new Error(`refused request changed stored data: ${describeReq(r, res)}\n${(error as Error).message}`);
      }
    }
    return res;
  }

  /** Sends garbage that must be refused with one of `expected`. */
  const refused = (r: Req, expected: number[]) => safely(r, expected);

  beforeAll(async () => {
    ds = await startDocstore(HIGH_LIMITS);
    c = await ds.newClient();
    other = await ds.newClient();
    spareTokenId = (await ds.mintToken(c.id, ['document:read'])).split('|')[0];
    const seed = async (key: string, data: Record<string, unknown>) =>
      request(ds.http).post(`${c.doc()}/${key}`).set(c.auth).send(docBody(key, data)).expect(201);
    await seed('seed-1', { price: 10, name: 'Alpha', address: { city: 'Oslo' } });
    await request(ds.http)
      .put(`${c.doc()}/seed-1`)
      .set(c.auth)
      .send(docBody('seed-1', { price: 12, name: 'Alpha' }))
      .expect(200);
    await seed('seed-2', { price: 5, tags: ['x'] });
    await request(ds.http).delete(`${c.doc()}/seed-2`).set(c.auth).expect(200);
    await request(ds.http)
      .post(`${c.doc('production', 'shop', 'typed')}/schema`)
      .set(c.auth)
      .send({ schema: { type: 'object', properties: { price: { type: 'number' } }, required: ['price'] } })
      .expect(201);
    await request(ds.http)
      .post(`${other.doc()}/theirs`)
      .set(other.auth)
      .send(docBody('theirs', { secret: true }))
      .expect(201);
    const history = await request(ds.http).get(`${c.doc()}/seed-1/history`).set(c.auth).expect(200);
    seedHistory = history.body.data.map((e: { id: string }) => e.id);
    const hook = await request(ds.http)
      .post(webhooks())
      .set(c.auth)
      .send({ url: 'https://192.0.0.170.nip.invalid/seed', events: ['document.deleted'], status: 'inactive' })
      .expect(201);
    seedWebhookId = hook.body.id;
  });
  afterAll(() => ds.close());

  // -------------------------------------------------------------------------------------
  // Bodies

  it(
    'refuses any JSON value that is not a valid body, on every endpoint that takes one',
    async () => {
      const endpoints: Array<(n: string) => Pick<Req, 'method' | 'path'>> = [
        (n) => ({ method: 'post', path: `${c.doc()}/${n}` }),
        () => ({ method: 'put', path: `${c.doc()}/seed-1` }),
        () => ({ method: 'post', path: `${c.doc()}/bulk` }),
        (n) => ({ method: 'post', path: `${c.doc('production', 'shop', n)}/schema` }),
        () => ({ method: 'post', path: tokens() }),
        () => ({ method: 'put', path: `${tokens()}/${spareTokenId}` }),
      ];
      await fc.assert(
        fc.asyncProperty(fc.nat(endpoints.length - 1), json, async (i, body) => {
          const isObject = typeof body === 'object' && body !== null && !Array.isArray(body);
          // A token update with only known fields (or none) can be valid; a schema body needs `schema`.
          fc.pre(!(i === 5 && isObject && Object.keys(body).every((k) => ['name', 'scopes', 'status'].includes(k))));
          fc.pre(!(i === 3 && isObject && 'schema' in body));
          const target = endpoints[i](fresh('fz'));
          // Top-level primitives are not JSON bodies body-parser accepts (400); the rest fails validation (422).
          await refused({ ...target, raw: JSON.stringify(body) }, [400, 422]);
        }),
        { numRuns: RUNS * 2 },
      );
    },
    TIMEOUT,
  );

  it(
    'refuses documents with a wrong-typed, missing or unknown field with 422, writing nothing',
    async () => {
      const corruption = fc.oneof(
        fc.tuple(fc.constantFrom('environment', 'context', 'type', 'key'), fc.oneof(nonString, fc.constant(''))).map(([f, v]) => ({ [f]: v })),
        nonObject.map((v) => ({ data: v })),
        badTtl.map((v) => ({ ttl: v })),
        badDate.map((v) => ({ expires_at: v })),
        fc.tuple(unknownField(['environment', 'context', 'type', 'key', 'data', 'ttl', 'expires_at']), json).map(([k, v]) => ({ [k]: v })),
        fc.constantFrom('environment', 'context', 'type', 'key', 'data').map((f) => ({ [f]: undefined })),
        fc.constant({ ttl: 60, expires_at: '2999-01-01T00:00:00Z' }),
      );
      await fc.assert(
        fc.asyncProperty(fc.boolean(), corruption, async (create, bad) => {
          const key = create ? fresh('fz') : 'seed-1';
          const body = { ...docBody(key, { ok: 1 }), ...bad };
          await refused({ method: create ? 'post' : 'put', path: `${c.doc()}/${key}`, body }, [422]);
        }),
        { numRuns: RUNS * 2 },
      );
    },
    TIMEOUT,
  );

  it(
    'refuses a bulk request with any bad item with 422 and writes none of its items',
    async () => {
      const badItem = fc.oneof(
        fc.oneof(nonString, fc.constant(''), fc.constantFrom('a/b', 'a\u0000', 'x'.repeat(256), 'bulk', 'schema', 'tab\there')).map((key) => ({ key })),
        nonObject.map((data) => ({ data })),
        badTtl.map((ttl) => ({ ttl })),
        badDate.map((expires_at) => ({ expires_at })),
        fc.tuple(unknownField(['key', 'data', 'ttl', 'expires_at']), json).map(([k, v]) => ({ [k]: v })),
        fc.constant({ ttl: 5, expires_at: '2999-01-01T00:00:00Z' }),
      );
      const badBody = fc.oneof(
        fc.tuple(fc.integer({ min: 1, max: 4 }), fc.nat(3), badItem).map(([size, at, bad]) => ({ size, at: at % size, bad, whole: false })),
        fc.tuple(fc.integer({ min: 1, max: 4 }), fc.nat(3), nonObject).map(([size, at, item]) => ({ size, at: at % size, bad: item, whole: true })),
        fc.constant({ size: 2, at: 1, bad: 'duplicate', whole: true }),
      );
      await fc.assert(
        fc.asyncProperty(badBody, async ({ size, at, bad, whole }) => {
          const documents: unknown[] = Array.from({ length: size }, (_, i) => ({ key: fresh(`bk${i}`), data: { i } }));
          if (bad === 'duplicate') documents[at] = { key: (documents[0] as { key: string }).key, data: {} };
          else documents[at] = whole ? bad : { ...(documents[at] as object), ...(bad as object) };
          await refused({ method: 'post', path: `${c.doc()}/bulk`, body: { documents } }, [422]);
          // Nothing of the batch exists afterwards, not even the good items.
          // (NUL cannot even be sent to PostgreSQL as a parameter, so such keys are left out of the check.)
          const keys = documents.flatMap((d) => {
            const key = (d as { key?: unknown })?.key;
            return typeof key === 'string' && !key.includes('\u0000') ? [key] : [];
          });
          const rows = await ds.get(Sql).rows('SELECT key FROM docstore.documents WHERE client_id = $1 AND key = ANY($2)', [c.id, keys]);
          expect(rows).toEqual([]);
        }),
        { numRuns: RUNS },
      );
      for (const documents of [[], {}, 'x', null, Array.from({ length: 5001 }, (_, i) => ({ key: `many-${i}`, data: {} }))]) {
        await refused({ method: 'post', path: `${c.doc()}/bulk`, body: { documents } }, [422]);
      }
      await refused({ method: 'post', path: `${c.doc()}/bulk`, body: { documents: [{ key: 'k', data: {} }], extra: 1 } }, [422]);
    },
    TIMEOUT,
  );

  it(
    'refuses token and schema bodies with a wrong-typed, missing or unknown field with 422',
    async () => {
      const badScopes = fc.oneof(
        nonObject.filter((v) => !Array.isArray(v)),
        fc
          .array(
            nastyString(12).filter((s) => !['*', 'document:read'].includes(s)),
            { minLength: 1, maxLength: 3 },
          )
          .map((extra) => ['document:read', ...extra]),
        fc.array(nonString, { minLength: 1, maxLength: 2 }),
        fc.tuple(unknownField(['permissions', 'document_rules']), json).map(([k, v]) => ({ permissions: [], [k]: v })),
        fc
          .oneof(
            nonObject.filter((v) => !Array.isArray(v)),
            fc.array(nonString, { minLength: 1, maxLength: 2 }),
          )
          .map((permissions) => ({ permissions })),
        fc
          .oneof(
            nonObject.filter((v) => !Array.isArray(v)),
            fc.array(nonObject, { minLength: 1, maxLength: 2 }),
          )
          .map((document_rules) => ({ permissions: [], document_rules })),
        fc
          .oneof(
            fc.record({ environment: fc.oneof(nonString, fc.constant('')), context: fc.constant('*'), permissions: fc.constant(['*']) }),
            fc.record({ environment: fc.constant('*'), context: fc.constant('*'), permissions: fc.constantFrom(['nope'], 'document:read', null) }),
            fc.record({ environment: fc.constant('*'), context: fc.constant('*'), permissions: fc.constant([]), extra: json }),
          )
          .map((rule) => ({ permissions: [], document_rules: [rule] })),
      );
      const tokenCorruption = fc.oneof(
        fc.oneof(nonString, fc.constantFrom('', 'n'.repeat(256))).map((name) => ({ name })),
        badScopes.map((scopes) => ({ scopes })),
        fc.oneof(badDate, fc.constantFrom('2000-01-01T00:00:00Z', '1970-01-01T00:00:00.000001Z')).map((expires_at) => ({ expires_at })),
        fc.tuple(unknownField(['name', 'scopes', 'expires_at', 'status']), json).map(([k, v]) => ({ [k]: v })),
      );
      const statusCorruption = fc
        .oneof(
          nonString,
          nastyString().filter((s) => s !== 'active' && s !== 'inactive'),
          fc.constant('revoked'),
        )
        .map((status) => ({ status }));
      const schemaBody = fc.oneof(
        fc.oneof(nonObject, fc.constant(undefined)).map((schema) => ({ schema })),
        fc.tuple(unknownField(['schema']), json).map(([k, v]) => ({ schema: { type: 'object' }, [k]: v })),
        fc
          .constantFrom<Record<string, unknown>>(
            { type: 'strng' },
            { type: 5 },
            { required: 'price' },
            { properties: [] },
            { $schema: 'http://example.com/not-a-draft' },
            { $schema: 5 },
            { minimum: 'x' },
            { pattern: '(' },
            { enum: 'x' },
            { $ref: '#/definitions/missing' },
            { $ref: 'https://remote.example.com/schema.json' },
          )
          .map((schema) => ({ schema })),
      );
      const target = fc.oneof(
        tokenCorruption.map((bad) => ({ method: 'post' as const, path: tokens(), body: { name: 'fuzz', scopes: ['document:read'], ...bad } })),
        // On update, null means "leave unchanged".
        fc
          .oneof(
            tokenCorruption.filter((bad) => !('expires_at' in bad)),
            statusCorruption,
          )
          .filter((bad) => Object.values(bad).every((v) => v !== null))
          .map((bad) => ({ method: 'put' as const, path: `${tokens()}/${spareTokenId}`, body: bad })),
        schemaBody.map((body) => ({ method: 'post' as const, path: `${c.doc('production', 'shop', fresh('st'))}/schema`, body })),
      );
      await fc.assert(
        fc.asyncProperty(target, (r) => refused(r, [422]).then(() => undefined)),
        { numRuns: RUNS * 2 },
      );
    },
    TIMEOUT,
  );

  it(
    'refuses webhook bodies with a wrong-typed, missing, unknown or unsafe field with 422, changing nothing',
    async () => {
      const badUrl = fc.oneof(
        nonString,
        nastyString(),
        fc.constantFrom(
          'x'.repeat(3000),
          'https://127.0.0.1/h',
          'http://[::1]/h',
          'https://169.254.169.254/',
          'https://10.0.0.1/h',
          'https://localhost/h',
          'http://93.184.216.34/h',
          'ftp://93.184.216.34/h',
          'https://u:p@93.184.216.34/h',
          'javascript:alert(1)',
          '//93.184.216.34/h',
          'https://',
        ),
      );
      const badEvents = fc.oneof(
        nonObject.filter((v) => !Array.isArray(v)),
        fc.constant([]),
        fc.array(fc.oneof(nonString, nastyString()), { minLength: 1, maxLength: 3 }).map((bad) => ['document.read', ...bad]),
      );
      const corruption = fc.oneof(
        badUrl.map((url) => ({ url })),
        badEvents.map((events) => ({ events })),
        fc
          .oneof(
            nonString,
            nastyString().filter((x) => x !== 'active' && x !== 'inactive'),
          )
          .map((status) => ({ status })),
        fc.tuple(unknownField(['url', 'events', 'status']), json).map(([k, v]) => ({ [k]: v })),
      );
      const target = fc.oneof(
        // A null status on create means the default.
        corruption
          .filter((bad) => !('status' in bad && bad.status === null))
          .map((bad) => ({ method: 'post' as const, path: webhooks(), body: { url: 'https://93.184.216.34/fuzz', events: ['document.read'], ...bad } })),
        // On update, null means "leave unchanged".
        corruption
          .filter((bad) => Object.values(bad).every((v) => v !== null))
          .map((bad) => ({ method: 'put' as const, path: `${webhooks()}/${seedWebhookId}`, body: bad })),
      );
      await fc.assert(
        fc.asyncProperty(target, (r) => refused(r, [422]).then(() => undefined)),
        { numRuns: RUNS * 2 },
      );
    },
    TIMEOUT,
  );

  it(
    'never fails on random webhook and delivery ids; refused calls change nothing',
    async () => {
      const route = fc.constantFrom('get', 'put', 'delete', 'rotate', 'deliveries', 'redeliver-webhook', 'redeliver-delivery');
      await fc.assert(
        fc.asyncProperty(route, segment, async (where, seg) => {
          const r: Req = (() => {
            switch (where) {
              case 'get':
                return { method: 'get', path: `${webhooks()}/${seg}` };
              case 'put':
                return { method: 'put', path: `${webhooks()}/${seg}`, body: { status: 'active' } };
              case 'delete':
                return { method: 'delete', path: `${webhooks()}/${seg}` };
              case 'rotate':
                return { method: 'post', path: `${webhooks()}/${seg}/rotate-secret` };
              case 'deliveries':
                return { method: 'get', path: `${webhooks()}/${seg}/deliveries` };
              case 'redeliver-webhook':
                return { method: 'post', path: `${webhooks()}/${seg}/deliveries/${seedWebhookId}/redeliver` };
              default:
                return { method: 'post', path: `${webhooks()}/${seedWebhookId}/deliveries/${seg}/redeliver` };
            }
          })();
          const res = await safely(r);
          expect([400, 404]).toContain(res.status);
        }),
        { numRuns: RUNS * 2 },
      );
    },
    TIMEOUT,
  );

  it(
    'stores nasty but well-formed document data exactly, or refuses it cleanly',
    async () => {
      const variant = fc.constantFrom('post', 'put', 'bulk');
      await fc.assert(
        fc.asyncProperty(variant, jsonObject, async (how, data) => {
          const key = fresh('nd');
          const path = `${c.doc()}/${key}`;
          if (how === 'put')
            await request(ds.http)
              .post(path)
              .set(c.auth)
              .send(docBody(key, { before: true }))
              .expect(201);
          const r: Req =
            how === 'bulk'
              ? { method: 'post', path: `${c.doc()}/bulk`, body: { documents: [{ key, data }] } }
              : { method: how, path, body: docBody(key, data) };
          const res = await safely(r);
          if (res.status >= 400) return;
          const expected = JSON.parse(JSON.stringify(data));
          const stored = how === 'bulk' ? res.body[0] : res.body;
          expect(stored.data).toEqual(expected);
          const read = await request(ds.http).get(path).set(c.auth).expect(200);
          expect(read.body.data).toEqual(expected);
        }),
        { numRuns: RUNS * 2 },
      );
    },
    TIMEOUT,
  );

  it(
    'stores nasty but well-formed token names, scopes rules and schemas exactly, or refuses them cleanly',
    async () => {
      const tokenBody = fc.oneof(
        nastyString(40).map((name) => ({ name, scopes: ['document:read'] })),
        fc.tuple(nastyString(), nastyString()).map(([environment, context]) => ({
          name: 'rules',
          scopes: { permissions: [], document_rules: [{ environment, context, permissions: ['document:read'] }] },
        })),
      );
      const schema = fc.record(
        {
          type: fc.constant('object'),
          title: nastyString(),
          description: nastyString(),
          properties: fc.dictionary(
            jsonKey,
            fc.record({ type: fc.constantFrom('string', 'number', 'integer', 'boolean', 'object', 'array', 'null'), description: nastyString() }),
            { maxKeys: 3 },
          ),
          required: fc.array(jsonKey, { maxLength: 3 }),
          enum: fc.array(json, { minLength: 1, maxLength: 2 }).map((vals) => [...vals, {}]),
          examples: fc.array(json, { maxLength: 2 }),
        },
        { requiredKeys: ['type'] },
      );
      const target = fc.oneof(
        tokenBody.map((body) => ({ kind: 'token' as const, body })),
        schema.map((body) => ({ kind: 'schema' as const, body })),
      );
      await fc.assert(
        fc.asyncProperty(target, async (t) => {
          if (t.kind === 'token') {
            const res = await safely({ method: 'post', path: tokens(), body: t.body });
            if (res.status >= 400) return;
            expect(res.status).toBe(201);
            expect({ name: res.body.token_details.name, scopes: res.body.token_details.scopes }).toEqual(JSON.parse(JSON.stringify(t.body)));
            await request(ds.http).delete(`${tokens()}/${res.body.token_details.id}`).set(c.auth).expect(204);
          } else {
            const scope = c.doc('production', 'shop', fresh('ns'));
            const res = await safely({ method: 'post', path: `${scope}/schema`, body: { schema: t.body } });
            if (res.status >= 400) return;
            const expected = JSON.parse(JSON.stringify(t.body));
            expect(res.body.schema).toEqual(expected);
            expect((await request(ds.http).get(`${scope}/schema`).set(c.auth).expect(200)).body.schema).toEqual(expected);
          }
        }),
        { numRuns: RUNS * 2 },
      );
    },
    TIMEOUT,
  );

  it(
    'accepts or refuses random JSON Schemas cleanly, and documents under an accepted one never cause a 5xx',
    async () => {
      const keyword = fc.record(
        {
          type: fc.constantFrom('object', 'string', 'number', 'array', ['object', 'null'], 'strng'),
          $id: fc.constantFrom('https://example.com/fuzz.json', 'https://example.com/other.json', 'urn:x', '#frag', 'relative.json'),
          $schema: fc.constantFrom('http://json-schema.org/draft-07/schema#', 'https://json-schema.org/draft/2020-12/schema', 'http://example.com/x'),
          properties: fc.dictionary(
            jsonKey,
            fc.record(
              {
                type: fc.constantFrom('string', 'number', 'integer'),
                format: fc.constantFrom('email', 'date-time', 'uuid', 'no-such-format'),
                minLength: fc.nat(3),
              },
              { requiredKeys: [] },
            ),
            { maxKeys: 3 },
          ),
          required: fc.array(jsonKey, { maxLength: 3 }),
          additionalProperties: fc.boolean(),
          pattern: fc.constantFrom('^a', '(', '[', '\\p{L}', '^\\d+$'),
          minProperties: fc.oneof(fc.nat(3), fc.constant(-1)),
          $ref: fc.constantFrom('#', '#/properties/a', '#/$defs/missing', 'https://example.com/fuzz.json'),
          $defs: fc.dictionary(jsonKey, fc.record({ type: fc.constant('string') }), { maxKeys: 2 }),
          if: fc.constant({ required: ['a'] }),
          then: fc.constant({ required: ['b'] }),
          description: nastyString(),
        },
        { requiredKeys: [] },
      );
      await fc.assert(
        fc.asyncProperty(fc.oneof(keyword, jsonObject), fc.array(jsonObject, { minLength: 1, maxLength: 3 }), async (schema, payloads) => {
          const type = fresh('rs');
          const scope = c.doc('production', 'shop', type);
          const put = await safely({ method: 'post', path: `${scope}/schema`, body: { schema } });
          if (put.status >= 400) {
            // Schema problems come as [{property, message}]; a request problem (e.g. NUL in a key) as {field: [messages]}.
            if (put.status === 422 && Array.isArray(put.body.errors))
              expect(put.body.errors).toEqual(expect.arrayContaining([{ property: expect.any(String), message: expect.any(String) }]));
            else if (put.status === 422) expect(Object.values(put.body.errors).flat()).toEqual(expect.arrayContaining([expect.any(String)]));
            return;
          }
          for (const data of payloads) {
            const key = fresh('sd');
            const res = await safely({ method: 'post', path: `${scope}/${key}`, body: docBody(key, data, {}, 'production', 'shop', type) });
            if (res.status === 422) expect(Array.isArray(res.body.errors) || typeof res.body.errors === 'object').toBe(true);
          }
          await safely({ method: 'post', path: `${scope}/bulk`, body: { documents: payloads.map((data) => ({ key: fresh('sb'), data })) } });
          await request(ds.http).delete(`${scope}/schema`).set(c.auth).expect(204);
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  it(
    'answers 400 {message} to malformed JSON on every route, before anything else',
    async () => {
      const routes: Array<() => Pick<Req, 'method' | 'path' | 'auth'>> = [
        () => ({ method: 'post', path: `${c.doc()}/${fresh('mj')}` }),
        () => ({ method: 'put', path: `${c.doc()}/seed-1` }),
        () => ({ method: 'delete', path: `${c.doc()}/seed-1` }),
        () => ({ method: 'post', path: `${c.doc()}/bulk` }),
        () => ({ method: 'post', path: `${c.doc()}/seed-1/history/${seedHistory[1]}/restore` }),
        () => ({ method: 'post', path: `${c.doc('production', 'shop', 'typed')}/schema` }),
        () => ({ method: 'post', path: tokens() }),
        () => ({ method: 'put', path: `${tokens()}/${spareTokenId}` }),
      ];
      await fc.assert(
        fc.asyncProperty(fc.nat(routes.length - 1), malformedJson, async (i, raw) => {
          await refused({ ...routes[i](), raw }, [400]);
        }),
        { numRuns: RUNS * 2 },
      );
    },
    TIMEOUT,
  );

  it(
    'answers 401 to malformed JSON without credentials: such a body is never read (issue 7)',
    async () => {
      await fc.assert(
        fc.asyncProperty(malformedJson, async (raw) => {
          await refused({ method: 'post', path: `${c.doc()}/${fresh('mj')}`, auth: false, raw }, [401]);
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  // -------------------------------------------------------------------------------------
  // Paths

  it(
    'never fails on random path segments; a refused write changes nothing',
    async () => {
      const route = fc.constantFrom(
        'client:list',
        'client:get',
        'client:tokens',
        'client:schema',
        'env:list',
        'ctx:get',
        'type:post',
        'key:get',
        'key:put',
        'key:delete',
        'key:history',
        'key:restore',
        'history:restore',
        'token:put',
        'token:delete',
        'tail:get',
        'tail:post',
      );
      await fc.assert(
        fc.asyncProperty(route, segment, async (where, seg) => {
          const doc = (env = 'production', ctx = 'shop', type = 'product') => `/api/v1/client/${c.id}/${env}/context/${ctx}/type/${type}`;
          const decoded = decodeOrNull(seg) ?? 'undecodable';
          const r: Req = (() => {
            switch (where) {
              case 'client:list':
                return { method: 'get', path: `/api/v1/client/${seg}/production/context/shop/type/product` };
              case 'client:get':
                return { method: 'get', path: `/api/v1/client/${seg}/production/context/shop/type/product/seed-1` };
              case 'client:tokens':
                return { method: 'post', path: `/api/v1/client/${seg}/tokens`, body: { name: 'x', scopes: ['*'] } };
              case 'client:schema':
                return { method: 'delete', path: `/api/v1/client/${seg}/production/context/shop/type/typed/schema` };
              case 'env:list':
                return { method: 'get', path: `${doc(seg)}?per_page=5` };
              case 'ctx:get':
                return { method: 'get', path: `${doc('production', seg)}/seed-1` };
              case 'type:post':
                return { method: 'post', path: `${doc('production', 'shop', seg)}/k`, body: docBody('k', {}, {}, 'production', 'shop', decoded) };
              case 'key:get':
                return { method: 'get', path: `${doc()}/${seg}?deleted=true` };
              case 'key:put':
                return { method: 'put', path: `${doc()}/${seg}`, body: docBody(decoded, { p: 1 }) };
              case 'key:delete':
                return { method: 'delete', path: `${doc()}/${seg}` };
              case 'key:history':
                return { method: 'get', path: `${doc()}/${seg}/history` };
              case 'key:restore':
                return { method: 'post', path: `${doc()}/${seg}/history/${seedHistory[1]}/restore` };
              case 'history:restore':
                return { method: 'post', path: `${doc()}/seed-1/history/${seg}/restore` };
              case 'token:put':
                return { method: 'put', path: `${tokens()}/${seg}`, body: { name: 'renamed' } };
              case 'token:delete':
                return { method: 'delete', path: `${tokens()}/${seg}` };
              case 'tail:get':
                return { method: 'get', path: `${doc()}/seed-1/${seg}` };
              default:
                return { method: 'post', path: `${doc()}/seed-1/history/${seg}` };
            }
          })();
          const res = await safely(r);
          if (where.startsWith('client:')) {
            // A client that is not a UUID: 400 (404 when the URL normalises to another route).
            const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(decoded);
            if (!isUuid) expect([400, 404]).toContain(res.status);
          }
          if (where === 'token:put' || where === 'token:delete') expect([400, 404]).toContain(res.status);
        }),
        { numRuns: RUNS * 3 },
      );
    },
    TIMEOUT,
  );

  it(
    'creates documents at any acceptable path and finds them there again; refuses the rest cleanly',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom('environment', 'context', 'type', 'key'), segment, async (position, seg) => {
          const decoded = decodeOrNull(seg);
          fc.pre(decoded !== null && !['.', '..'].includes(decoded) && !['.', '..'].includes(seg.toLowerCase().replace(/%2e/g, '.')));
          const parts: Record<string, string> = { environment: 'production', context: 'shop', type: 'product', key: fresh('pk') };
          const raw = { ...parts, [position]: seg };
          const values = { ...parts, [position]: decoded! };
          const path = `/api/v1/client/${c.id}/${raw.environment}/context/${raw.context}/type/${raw.type}/${raw.key}`;
          const res = await safely({ method: 'post', path, body: docBody(values.key, { at: position }, {}, values.environment, values.context, values.type) });
          if (res.status >= 400) return;
          expect(res.status).toBe(201);
          expect(res.body).toMatchObject(values);
          const read = await request(ds.http).get(path).set(c.auth).expect(200);
          expect(read.body).toMatchObject({ ...values, data: { at: position } });
          await request(ds.http).delete(path).set(c.auth).expect(200);
        }),
        { numRuns: RUNS * 2 },
      );
    },
    TIMEOUT,
  );

  it(
    'answers 404 JSON to unsupported methods on every route',
    async () => {
      const paths = [
        c.doc(),
        `${c.doc()}/seed-1`,
        `${c.doc()}/bulk`,
        `${c.doc()}/seed-1/history`,
        `${c.doc()}/seed-1/history/1/restore`,
        `${c.doc()}/schema`,
        tokens(),
        `${tokens()}/${spareTokenId}`,
        '/health',
        '/',
      ];
      for (const path of paths) await refused({ method: 'patch', path, body: {} }, [404]);
      await refused({ method: 'put', path: c.doc(), body: {} }, [404]);
      await refused({ method: 'delete', path: tokens() }, [404]);
      await refused({ method: 'get', path: `${c.doc()}/bulk/x/y/z` }, [404]);
    },
    TIMEOUT,
  );

  // -------------------------------------------------------------------------------------
  // Query strings and headers

  const queryKey = fc.oneof(
    fc.constantFrom('page', 'per_page', 'deleted', 'sort', 'filter', 'filter[]', 'filter[_gt]', 'filter[price][between]'),
    fc.oneof(nastyString(12), fc.constantFrom('price', 'name', 'address.city', 'tags', 'a..b', '.a', '_key')).chain((field) =>
      fc.oneof(
        fc.constant(`filter[${field}]`),
        fc.constantFrom('eq', 'gt', 'gte', 'lt', 'lte', 'neq', 'like', 'between', '', 'GT').map((op) => `filter[${field}][${op}]`),
        fc.constantFrom('gt', 'gte', 'lt', 'lte', 'neq', 'like').map((op) => `filter[${field}_${op}]`),
      ),
    ),
    nastyString(10),
  );
  const queryValue = fc.oneof(
    nastyString(20),
    fc.constantFrom(
      '0',
      '1',
      '2',
      '15',
      '100',
      '101',
      '100000',
      '-1',
      '1.5',
      '1e3',
      '01',
      'true',
      'false',
      'null',
      'Alpha',
      'oslo',
      '12',
      '1e999999',
      '-1e-999999',
      '_key,-price',
      'price,-address.city',
      'a,b,c,d,e,f',
      ',',
      '-',
    ),
    fc.integer().map(String),
    fc.double().map(String),
  );
  const queryString = fc.array(fc.tuple(queryKey, queryValue), { maxLength: 5 }).map((pairs) => pairs.map(([k, v]) => `${pct(k)}=${pct(v)}`).join('&'));

  it(
    'answers 200 or 422 to any query string on the document list, never changing anything',
    async () => {
      const before = await snapshot();
      await fc.assert(
        fc.asyncProperty(queryString, fc.boolean(), async (query, nested) => {
          const r: Req = { method: 'get', path: `${nested ? c.doc('production', 'shop', 'typed') : c.doc()}?${query}` };
          const res = await safely(r, [200, 422]);
          if (res.status === 200) {
            expect(res.body).toMatchObject({
              data: expect.any(Array),
              total: expect.any(Number),
              current_page: expect.any(Number),
              per_page: expect.any(Number),
            });
            expect(res.body.per_page).toBeLessThanOrEqual(100);
            expect(res.body.data.length).toBeLessThanOrEqual(res.body.per_page);
          } else {
            expect(typeof res.body.errors).toBe('object');
          }
        }),
        { numRuns: RUNS * 3 },
      );
      expect(await snapshot()).toEqual(before);
    },
    TIMEOUT,
  );

  it(
    'answers 200 or 422 to any query string on history, tokens and single documents',
    async () => {
      const before = await snapshot();
      const paths = [`${c.doc()}/seed-1/history`, tokens(), `${c.doc()}/seed-1`, `${c.doc()}/seed-2`, `${c.doc('production', 'shop', 'typed')}/schema`];
      await fc.assert(
        fc.asyncProperty(fc.nat(paths.length - 1), queryString, async (i, query) => {
          await safely({ method: 'get', path: `${paths[i]}?${query}` }, i >= 2 ? [200, 404, 422] : [200, 422]);
        }),
        { numRuns: RUNS * 2 },
      );
      expect(await snapshot()).toEqual(before);
    },
    TIMEOUT,
  );

  describe('query parameters in array, object or repeated form (issue 34, finding 5)', () => {
    /** A valid value of each scalar parameter, so that only its form can be wrong. */
    const VALID: Record<string, string> = { page: '1', per_page: '5', sort: 'price', deleted: 'true', window: '7d' };
    /** Every operation that reads a query, with the scalar parameters it takes. */
    const routes = (): Array<{ path: string; names: string[] }> => [
      { path: c.doc(), names: ['page', 'per_page', 'sort', 'deleted'] },
      { path: `${c.doc()}/seed-1`, names: ['deleted'] },
      { path: `${c.doc()}/seed-1/history`, names: ['page', 'per_page'] },
      { path: tokens(), names: ['page', 'per_page'] },
      { path: webhooks(), names: ['page', 'per_page'] },
      { path: `${webhooks()}/${seedWebhookId}/deliveries`, names: ['page', 'per_page'] },
      { path: `/api/v1/client/${c.id}/collections`, names: ['page', 'per_page'] },
      { path: `/api/v1/client/${c.id}/stats`, names: ['window'] },
    ];

    it.each([
      ['the list', 'per_page[]=1000', 'per_page[]'],
      ['the list', 'sort[]=-price', 'sort[]'],
      ['the list', 'deleted[]=true', 'deleted[]'],
      ['one document', 'deleted[]=true', 'deleted[]'],
      ['the statistics', 'window[]=7d', 'window[]'],
    ])('answers 422 naming the parameter to %s with ?%s', async (target, query, name) => {
      const path = { 'the list': c.doc(), 'one document': `${c.doc()}/seed-1`, 'the statistics': `/api/v1/client/${c.id}/stats` }[target]!;
      const res = await refused({ method: 'get', path: `${path}?${query}` }, [422]);
      const declared = name.slice(0, -2);
      expect(res.body).toEqual({
        message: expect.any(String),
        errors: { [name]: [`The ${declared} parameter takes a single value: ${name} is not accepted.`] },
      });
    });

    it(
      'answers 422 naming the parameter to any array, object or repeated form of a scalar one, never a default',
      async () => {
        const form = fc.oneof(
          fc.constant((name: string) => `${name}[]=${VALID[name]}`),
          fc.nat(3).map((i) => (name: string) => `${name}[${i}]=${VALID[name]}`),
          fc.constantFrom('a', 'gte', '', '__proto__').map((k) => (name: string) => `${name}[${k}]=${VALID[name]}`),
          fc.constantFrom('', '[]').map((suffix) => (name: string) => `${name}=${VALID[name]}&${name}${suffix}=${VALID[name]}`),
          fc.constant((name: string) => `${encodeURIComponent(`${name}[]`)}=${VALID[name]}`),
        );
        await fc.assert(
          fc.asyncProperty(fc.nat(routes().length - 1), fc.nat(3), form, fc.boolean(), async (i, n, write, withValid) => {
            const route = routes()[i];
            const name = route.names[n % route.names.length];
            const others = withValid ? route.names.filter((other) => other !== name).map((other) => `${other}=${VALID[other]}`) : [];
            const res = await refused({ method: 'get', path: `${route.path}?${[...others, write(name)].join('&')}` }, [422]);
            expect(Object.keys(res.body.errors).some((key) => key === name || key.startsWith(`${name}[`))).toBe(true);
          }),
          { numRuns: RUNS * 2 },
        );
      },
      TIMEOUT,
    );
  });

  it(
    'answers 401 {error, message} with rate-limit headers to any bad credential, on every route',
    async () => {
      const [tokenId, secret] = c.token.split('|');
      const credentials = fc.oneof(
        headerValue.map((v) => ({ Authorization: v })),
        headerValue.map((v) => ({ Authorization: `Bearer ${v}` })),
        fc.tuple(fc.uuid(), headerValue).map(([id, s]) => ({ Authorization: `Bearer ${id}|${s}` })),
        headerValue.filter((s) => s.trim() !== secret).map((s) => ({ Authorization: `Bearer ${tokenId}|${s}` })),
        headerValue.filter((s) => s.trim() !== '').map((s) => ({ Authorization: `Bearer ${c.token}${s}` })),
        fc.constantFrom('Basic', 'Token', 'Bearer:', 'Bearer|').map((scheme) => ({ Authorization: `${scheme} ${c.token}` })),
        fc.constant({ Authorization: `Bearer ${c.token.toUpperCase()}` }),
        fc.tuple(headerValue, headerValue).map(([k, t]) => ({ 'X-Client-Key': k, 'X-Client-Token': t })),
        headerValue.filter((t) => t.trim() !== secret).map((t) => ({ 'X-Client-Key': tokenId, 'X-Client-Token': t })),
        fc.constant({ 'X-Client-Key': tokenId }),
        fc.constant({}),
      );
      const routes: Array<() => Omit<Req, 'headers' | 'auth'>> = [
        () => ({ method: 'get', path: c.doc() }),
        () => ({ method: 'get', path: `${c.doc()}/seed-1` }),
        () => ({ method: 'post', path: `${c.doc()}/${fresh('au')}`, body: docBody(`au-${counter}`, {}) }),
        () => ({ method: 'put', path: `${c.doc()}/seed-1`, body: docBody('seed-1', { hacked: true }) }),
        () => ({ method: 'delete', path: `${c.doc()}/seed-1` }),
        () => ({ method: 'post', path: `${c.doc()}/bulk`, body: { documents: [{ key: 'seed-1', data: { hacked: true } }] } }),
        () => ({ method: 'get', path: `${c.doc()}/seed-1/history` }),
        () => ({ method: 'post', path: `${c.doc()}/seed-1/history/${seedHistory[1]}/restore` }),
        () => ({ method: 'delete', path: `${c.doc('production', 'shop', 'typed')}/schema` }),
        () => ({ method: 'post', path: tokens(), body: { name: 'x', scopes: ['*'] } }),
        () => ({ method: 'put', path: `${tokens()}/${spareTokenId}`, body: { status: 'inactive' } }),
        () => ({ method: 'delete', path: `${tokens()}/${spareTokenId}` }),
        () => ({ method: 'get', path: `/api/v1/client/not-a-uuid/tokens` }),
      ];
      await fc.assert(
        fc.asyncProperty(fc.nat(routes.length - 1), credentials, async (i, headers) => {
          const res = await refused({ ...routes[i](), headers, auth: false }, [401]);
          expect(res.body.error).toBe('Unauthorized');
          expect(res.headers['x-ratelimit-limit']).toMatch(/^\d+$/);
          expect(res.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
          expect(res.headers['x-ratelimit-reset']).toMatch(/^\d+$/);
        }),
        { numRuns: RUNS * 2 },
      );
    },
    TIMEOUT,
  );

  it(
    'never fails on random If-Match / If-None-Match headers; a refused write changes nothing',
    async () => {
      const precondition = fc.oneof(
        headerValue,
        fc.constantFrom('*', '"1"', '"2"', '"3"', 'W/"2"', '2', ' "2" ', '"99999999999"', '"-1"', '"1", "2"', '""', '"2'),
      );
      await fc.assert(
        fc.asyncProperty(fc.constantFrom('put', 'delete', 'restore', 'get'), precondition, async (how, value) => {
          const key = fresh('im');
          const path = `${c.doc()}/${key}`;
          await request(ds.http)
            .post(path)
            .set(c.auth)
            .send(docBody(key, { v: 1 }))
            .expect(201);
          await request(ds.http)
            .put(path)
            .set(c.auth)
            .send(docBody(key, { v: 2 }))
            .expect(200);
          if (how === 'get') {
            await safely({ method: 'get', path, headers: { 'If-None-Match': value } }, [200, 304]);
            return;
          }
          let r: Req;
          if (how === 'put') r = { method: 'put', path, body: docBody(key, { v: 3 }), headers: { 'If-Match': value } };
          else if (how === 'delete') r = { method: 'delete', path, headers: { 'If-Match': value } };
          else {
            const entry = (await request(ds.http).get(`${path}/history`).set(c.auth).expect(200)).body.data[1].id;
            r = { method: 'post', path: `${path}/history/${entry}/restore`, headers: { 'If-Match': value } };
          }
          await safely(r, [200, 412]);
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  // -------------------------------------------------------------------------------------
  // Examples

  describe('examples', () => {
    it('refuses a 1,000-character key with 422 on every document route', async () => {
      const key = 'k'.repeat(1000);
      const path = `${c.doc()}/${key}`;
      for (const r of [
        { method: 'post', path, body: docBody(key, {}) },
        { method: 'get', path },
        { method: 'put', path, body: docBody(key, {}) },
        { method: 'delete', path },
        { method: 'get', path: `${path}/history` },
        { method: 'post', path: `${path}/history/1/restore` },
      ] as Req[]) {
        const res = await refused(r, [422]);
        expect(res.body.errors.key).toEqual([expect.any(String)]);
      }
      await refused({ method: 'post', path: `${c.doc()}/bulk`, body: { documents: [{ key, data: {} }] } }, [422]);
    });

    it('refuses a key containing an encoded slash with 422 or 404', async () => {
      for (const r of [
        { method: 'post', path: `${c.doc()}/a%2Fb`, body: docBody('a/b', {}) },
        { method: 'get', path: `${c.doc()}/a%2Fb` },
        { method: 'put', path: `${c.doc()}/seed%2F1`, body: docBody('seed/1', {}) },
        { method: 'delete', path: `${c.doc()}/%2F` },
      ] as Req[]) {
        await refused(r, [404, 422]);
      }
    });

    it('refuses non-object data with 422 naming data', async () => {
      for (const data of [[1, 2], [], 'text', null, 5, true]) {
        const key = fresh('no');
        const res = await refused({ method: 'post', path: `${c.doc()}/${key}`, body: { ...docBody(key, {}), data } }, [422]);
        expect(res.body.errors.data).toEqual(expect.any(Array));
        await refused({ method: 'put', path: `${c.doc()}/seed-1`, body: { ...docBody('seed-1', {}), data } }, [422]);
        await refused({ method: 'post', path: `${c.doc()}/bulk`, body: { documents: [{ key, data }] } }, [422]);
      }
    });

    it('answers 400 {message} to a client that is not a UUID, on every route', async () => {
      for (const client of ['not-a-uuid', '123', 'c0ffee', `${c.id}x`, `{${c.id}}`]) {
        const doc = `/api/v1/client/${client}/production/context/shop/type/product`;
        for (const r of [
          { method: 'get', path: doc },
          { method: 'get', path: `${doc}/seed-1` },
          { method: 'post', path: `${doc}/k`, body: docBody('k', {}) },
          { method: 'post', path: `${doc}/bulk`, body: { documents: [{ key: 'k', data: {} }] } },
          { method: 'get', path: `${doc}/schema` },
          { method: 'get', path: `/api/v1/client/${client}/tokens` },
          { method: 'post', path: `/api/v1/client/${client}/tokens`, body: { name: 'x', scopes: ['*'] } },
        ] as Req[]) {
          await refused(r, [400]);
        }
      }
    });

    it('refuses per_page=0, per_page=100000 and other bad paging with 422 on every list', async () => {
      for (const path of [c.doc(), `${c.doc()}/seed-1/history`, tokens()]) {
        for (const query of ['per_page=0', 'per_page=100000', 'per_page=101', 'per_page=-1', 'per_page=1.5', 'per_page=abc', 'per_page=1&per_page=2']) {
          const res = await refused({ method: 'get', path: `${path}?${query}` }, [422]);
          expect(res.body.errors.per_page).toEqual([expect.any(String)]);
        }
        for (const query of ['page=0', 'page=-1', 'page=x', 'page=1e2']) {
          const res = await refused({ method: 'get', path: `${path}?${query}` }, [422]);
          expect(res.body.errors.page).toEqual([expect.any(String)]);
        }
        expect((await call({ method: 'get', path: `${path}?per_page=100` })).status).toBe(200);
      }
    });

    it('refuses unknown, repeated and field-less filters with 422 keyed by the parameter', async () => {
      for (const [query, param] of [
        ['filter[a][between]=1', 'filter[a][between]'],
        ['filter[_gt]=1', 'filter[_gt]'],
        ['filter[]=1', 'filter[]'],
        ['filter=x', 'filter'],
        ['filter[a]=1&filter[a]=2', 'filter[a]'],
        ['filter[a..b]=1', 'filter[a..b]'],
        ['deleted=maybe', 'deleted'],
      ]) {
        const res = await refused({ method: 'get', path: `${c.doc()}?${query}` }, [422]);
        expect(Object.keys(res.body.errors)).toEqual([param]);
      }
    });
  });

  // -------------------------------------------------------------------------------------
  // Inputs the properties above found answering 5xx (or storing something else than was
  // sent); each is pinned here as the smallest request that shows it.

  describe('minimal failing inputs found by the properties', () => {
    const list = (query: string) => call({ method: 'get', path: `${c.doc()}?${query}` });

    it('an equality filter answers 200 (filter[name]=Alpha, filter[price]=12)', async () => {
      for (const query of ['filter[name]=Alpha', 'filter[price]=12', 'filter[name][eq]=Alpha', 'filter[address.city]=Oslo', 'filter[name_neq]=Beta']) {
        const res = await list(query);
        expect({ query, status: res.status }).toEqual({ query, status: 200 });
      }
    });

    it('filters and sorts naming Object.prototype members are ordinary field names', async () => {
      for (const query of ['sort=__proto__', 'sort=constructor', 'sort=-toString', 'filter[constructor_gt]=1', 'filter[__proto__][like]=x']) {
        const res = await safely({ method: 'get', path: `${c.doc()}?${query}` });
        expect({ query, status: res.status }).toEqual({ query, status: 200 });
      }
    });

    it('a NUL character in a filter value, filter field or sort field is not a 5xx', async () => {
      for (const query of ['filter[name_like]=%00', 'filter[name_gt]=a%00', 'filter[a%00_gt]=1', 'sort=a%00', 'filter[name][neq]=%00']) {
        await safely({ method: 'get', path: `${c.doc()}?${query}` }, [200, 422]);
      }
    });

    it('numbers beyond PostgreSQL numeric range in filters are not a 5xx', async () => {
      for (const query of ['filter[price_gt]=1e999999', 'filter[price_lt]=1e-999999', 'filter[price][gte]=-1e131072']) {
        await safely({ method: 'get', path: `${c.doc()}?${query}` }, [200, 422]);
      }
    });

    it('NUL characters and lone surrogates in document data are refused with 4xx, on create, update and bulk', async () => {
      for (const data of [{ a: 'x\u0000y' }, { 'a\u0000': 1 }, { a: '\ud800' }, { a: ['\udfff'] }, { '\ud83d': true }]) {
        const key = fresh('nul');
        await refused({ method: 'post', path: `${c.doc()}/${key}`, body: docBody(key, data) }, [400, 422]);
        await refused({ method: 'put', path: `${c.doc()}/seed-1`, body: docBody('seed-1', data) }, [400, 422]);
        await refused({ method: 'post', path: `${c.doc()}/bulk`, body: { documents: [{ key, data }] } }, [400, 422]);
      }
    });

    it('NUL characters in token names, token rules and schemas are refused with 4xx', async () => {
      await refused({ method: 'post', path: tokens(), body: { name: 'a\u0000', scopes: ['*'] } }, [400, 422]);
      await refused({ method: 'put', path: `${tokens()}/${spareTokenId}`, body: { name: 'a\u0000' } }, [400, 422]);
      await refused(
        {
          method: 'post',
          path: tokens(),
          body: { name: 'r', scopes: { permissions: [], document_rules: [{ environment: 'a\u0000', context: '*', permissions: ['*'] }] } },
        },
        [400, 422],
      );
      await refused({ method: 'post', path: `${c.doc('production', 'shop', 'nulschema')}/schema`, body: { schema: { description: 'a\u0000' } } }, [400, 422]);
      await refused({ method: 'post', path: `${c.doc('production', 'shop', 'nulschema')}/schema`, body: { schema: { description: '\ud800' } } }, [400, 422]);
    });

    it('ISO 8601 forms PostgreSQL cannot read are refused (or stored), never a 5xx', async () => {
      for (const expires_at of ['-2000-01-01T00:00:00Z', '2020-W01-1', '2031-W01-1', '2030', '2030-01-01T10', '+2030-01-01', '2030-01-01T00:00:00+2359']) {
        const key = fresh('iso');
        await safely({ method: 'post', path: `${c.doc()}/${key}`, body: docBody(key, {}, { expires_at }) }, [201, 422]);
        await safely({ method: 'post', path: `${c.doc()}/bulk`, body: { documents: [{ key: fresh('isob'), data: {}, expires_at }] } }, [200, 422]);
        const token = await safely({ method: 'post', path: tokens(), body: { name: 'iso', scopes: ['document:read'], expires_at } }, [201, 422]);
        if (token.status === 201) expect(Date.parse(token.body.token_details.expires_at)).toBeGreaterThan(Date.now());
      }
    });

    it('a token expires_at in the past is refused with 422 whatever its ISO 8601 form', async () => {
      for (const expires_at of ['20200101T000000Z', '2020-01-01T00:00:00.000Z', '2020-001', '2020']) {
        await refused({ method: 'post', path: tokens(), body: { name: 'past', scopes: ['document:read'], expires_at } }, [422]);
      }
    });

    it('deeply nested document data is refused with 4xx, not a 5xx', async () => {
      for (const [open, close] of [
        ['[', ']'],
        ['{"a":', '}'],
      ]) {
        for (const depth of [3000, 20000]) {
          const key = fresh('deep');
          const raw = `{"environment":"production","context":"shop","type":"product","key":"${key}","data":{"a":${open.repeat(depth)}1${close.repeat(depth)}}}`;
          await safely({ method: 'post', path: `${c.doc()}/${key}`, raw }, [201, 400, 413, 422]);
          const bulk = `{"documents":[{"key":"${key}b","data":{"a":${open.repeat(depth)}1${close.repeat(depth)}}}]}`;
          await safely({ method: 'post', path: `${c.doc()}/bulk`, raw: bulk }, [200, 400, 413, 422]);
        }
      }
    });

    it('a schema with $id keeps working for its documents, and does not block other clients or replacements', async () => {
      const schema = { $id: 'https://example.com/schemas/product.json', type: 'object', properties: { price: { type: 'number' } } };
      const mine = c.doc('production', 'shop', 'with-id');
      await safely({ method: 'post', path: `${mine}/schema`, body: { schema } }, [201]);
      await safely({ method: 'post', path: `${mine}/d1`, body: docBody('d1', { price: 1 }, {}, 'production', 'shop', 'with-id') }, [201]);
      const wrong = await safely({ method: 'post', path: `${mine}/d2`, body: docBody('d2', { price: 'x' }, {}, 'production', 'shop', 'with-id') }, [422]);
      expect(wrong.body.errors).toEqual([{ property: 'price', message: expect.any(String) }]);
      // Replacing it with a different schema under the same $id.
      await safely({ method: 'post', path: `${mine}/schema`, body: { schema: { ...schema, required: ['price'] } } }, [200]);
      // Another client's schema with the same $id is none of this client's business.
      const theirs = await ds.newClient();
      const res = await request(ds.http)
        .post(`${theirs.doc('production', 'shop', 'with-id')}/schema`)
        .set(theirs.auth)
        .send({ schema: { ...schema, required: ['name'] } });
      expect(res.status).toBe(201);
    });

    it('recursive schemas: a valid one (tree) is accepted and enforced; an endless one is no 5xx', async () => {
      for (const [i, schema] of [
        { type: 'object', properties: { child: { $ref: '#' }, name: { type: 'string' } } },
        { $id: 'https://example.com/schemas/tree.json', type: 'object', properties: { child: { $ref: '#' }, name: { type: 'string' } } },
      ].entries()) {
        const type = fresh('tree');
        const scope = c.doc('production', 'shop', type);
        await safely({ method: 'post', path: `${scope}/schema`, body: { schema } }, [201]);
        await safely(
          { method: 'post', path: `${scope}/ok`, body: docBody('ok', { child: { child: { name: 'leaf' } } }, {}, 'production', 'shop', type) },
          [201],
        );
        const bad = await safely(
          { method: 'post', path: `${scope}/bad`, body: docBody('bad', { child: { child: { name: i } } }, {}, 'production', 'shop', type) },
          [422],
        );
        expect(bad.body.errors).toEqual([{ property: 'child.child.name', message: expect.any(String) }]);
      }
      // A schema that is nothing but a reference to itself: refused, or at least documents under it are no 5xx.
      const type = fresh('loop');
      const scope = c.doc('production', 'shop', type);
      const put = await safely(
        { method: 'post', path: `${scope}/schema`, body: { schema: { $id: 'https://example.com/schemas/loop.json', $ref: '#' } } },
        [201, 422],
      );
      if (put.status === 201) await safely({ method: 'post', path: `${scope}/d`, body: docBody('d', {}, {}, 'production', 'shop', type) }, [201, 422]);
    });

    it('data keys named like Object.prototype members are stored, not silently dropped', async () => {
      const data = { constructor: 'Bosch', toString: 'x', valueOf: 1, hasOwnProperty: [], nested: { isPrototypeOf: true, __defineGetter__: null }, ok: 1 };
      const key = fresh('objkeys');
      const created = await safely({ method: 'post', path: `${c.doc()}/${key}`, body: docBody(key, data) }, [201]);
      expect(created.body.data).toEqual(data);
      const updated = await safely({ method: 'put', path: `${c.doc()}/${key}`, body: docBody(key, { ...data, v: 2 }) }, [200]);
      expect(updated.body.data).toEqual({ ...data, v: 2 });
      const bulk = await safely({ method: 'post', path: `${c.doc()}/bulk`, body: { documents: [{ key: fresh('objkeys'), data }] } }, [200]);
      expect(bulk.body[0].data).toEqual(data);
      // An unknown body field is refused whatever its name.
      await refused({ method: 'post', path: `${c.doc()}/${fresh('objkeys')}`, body: { ...docBody(`objkeys-${counter}`, {}), constructor: 0 } }, [422]);
      // In a schema such a key changes what is validated.
      const schema = { type: 'object', properties: { constructor: { type: 'string' } }, required: ['constructor'] };
      const put = await safely({ method: 'post', path: `${c.doc('production', 'shop', fresh('objschema'))}/schema`, body: { schema } }, [201]);
      expect(put.body.schema).toEqual(schema);
    });

    it('a bulk item that is an array is refused with 422', async () => {
      for (const documents of [[[]], [[{ key: 'nested', data: {} }]], [{ key: 'fine', data: {} }, [{ key: 'nested', data: {} }]]]) {
        await refused({ method: 'post', path: `${c.doc()}/bulk`, body: { documents } }, [422]);
      }
    });

    it('ttl: null does not create an already-expired document', async () => {
      const key = fresh('ttlnull');
      const res = await safely({ method: 'post', path: `${c.doc()}/${key}`, body: docBody(key, { a: 1 }, { ttl: null }) }, [201, 422]);
      if (res.status === 201) {
        expect(res.body.expires_at).toBeNull();
        await request(ds.http).get(`${c.doc()}/${key}`).set(c.auth).expect(200);
      }
    });

    it('a "__proto__" key in data is stored as sent, or refused; never silently dropped', async () => {
      const key = fresh('proto');
      const raw = `{"environment":"production","context":"shop","type":"product","key":"${key}","data":{"__proto__":{"x":1},"kept":true}}`;
      const res = await safely({ method: 'post', path: `${c.doc()}/${key}`, raw }, [201, 422]);
      if (res.status === 201) expect(res.text).toContain('"__proto__":{"x":1}');
    });
  });
});

describe('docstore: bodies over BODY_LIMIT_BYTES', () => {
  let ds: Docstore;
  let c: Client;

  beforeAll(async () => {
    ds = await startDocstore({ ...HIGH_LIMITS, BODY_LIMIT_BYTES: '2048' });
    c = await ds.newClient();
  });
  afterAll(() => ds.close());

  it('answers 413 {message} and writes nothing, on every route that takes a body', async () => {
    const big = 'x'.repeat(3000);
    const count = async () =>
      (await ds.get(Sql).one<{ n: number }>(
        `SELECT (SELECT count(*) FROM docstore.documents WHERE client_id = $1) + (SELECT count(*) FROM docstore.schemas WHERE client_id = $1)
              + (SELECT count(*) FROM docstore.tokens WHERE client_id = $1) AS n`,
        [c.id],
      ))!.n;
    const before = await count();
    for (const [method, path, body] of [
      ['post', `${c.doc()}/big`, docBody('big', { big })],
      ['put', `${c.doc()}/big`, docBody('big', { big })],
      ['post', `${c.doc()}/bulk`, { documents: [{ key: 'big', data: { big } }] }],
      ['post', `${c.doc()}/schema`, { schema: { description: big } }],
      ['post', `/api/v1/client/${c.id}/tokens`, { name: 'big', scopes: Array(700).fill('*') }],
      ['post', `${c.doc()}/big`, { without: 'credentials', big }],
    ] as const) {
      let q = request(ds.http)[method](path);
      if (!('without' in body)) q = q.set(c.auth);
      const res = await q.send(body as object);
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 413 });
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({ message: expect.any(String) });
    }
    expect(await count()).toBe(before);
    // Just under the limit is fine.
    await request(ds.http)
      .post(`${c.doc()}/small`)
      .set(c.auth)
      .send(docBody('small', { s: 'x'.repeat(1500) }))
      .expect(201);
  });
});
