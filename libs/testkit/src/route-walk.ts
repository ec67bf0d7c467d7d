import type { Server } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import { isStorableText } from '@app/errors';
import fc from 'fast-check';
import request from 'supertest';

export type HttpMethod = 'get' | 'post' | 'put' | 'delete' | 'patch';

/** A route as the booted app serves it: `/api/Templates/:id` and its parameter names. */
export interface AppRoute {
  method: HttpMethod;
  path: string;
  params: string[];
}

/** One place to put a generated segment: a parameter of the route, or (`null`) one more segment after its path. */
export interface PathTarget {
  route: AppRoute;
  param: string | null;
}

interface RouterLayer {
  route?: { path: unknown; methods: Record<string, boolean> };
}

const PARAM = /:([A-Za-z_][A-Za-z0-9_]*)/g;
const METHODS: readonly HttpMethod[] = ['get', 'post', 'put', 'delete', 'patch'];

/**
 * Every route the booted app serves, read from Express's router, where Nest registers each
 * handler (and Swagger its JSON document): a route added tomorrow is walked without a test edit.
 */
export function appRoutes(app: INestApplication): AppRoute[] {
  const express = app.getHttpAdapter().getInstance() as { router: { stack: RouterLayer[] } };
  const routes: AppRoute[] = [];
  for (const layer of express.router.stack) {
    if (!layer.route) continue;
    const path = layer.route.path;
    // Only `:name` parameters are walked; a wildcard or optional part would need a generator of its own.
    if (typeof path !== 'string' || /[*{}()]/.test(path)) throw new Error(`route-walk: cannot walk the route path ${String(path)}`);
    const params = [...path.matchAll(PARAM)].map((m) => m[1]);
    for (const method of METHODS) if (layer.route.methods[method]) routes.push({ method, path, params });
  }
  return routes;
}

/** Each parameter of each route, and one segment appended to each route without any. */
export function pathTargets(routes: AppRoute[]): PathTarget[] {
  return routes.flatMap((route): PathTarget[] => (route.params.length > 0 ? route.params.map((param) => ({ route, param })) : [{ route, param: null }]));
}

/**
 * The target's URL: its parameter replaced by `segment` (sent as is: already percent-encoded),
 * every other parameter by its value in `valid` (encoded). A parameter without a valid value
 * fails the test, so a new route gets one before it is walked.
 */
export function targetUrl(target: PathTarget, segment: string, valid: Record<string, string>): string {
  const path = target.route.path.replace(PARAM, (_, name: string) => {
    if (name === target.param) return segment;
    if (valid[name] === undefined) throw new Error(`route-walk: no valid value for :${name} (${target.route.method.toUpperCase()} ${target.route.path})`);
    return encodeURIComponent(valid[name]);
  });
  return target.param === null ? `${path.replace(/\/$/, '')}/${segment}` : path;
}

/** Runs `check` on every target, a few at a time (each target's requests in order). */
export async function eachTarget(targets: PathTarget[], check: (target: PathTarget) => Promise<void>, concurrency = 4): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < targets.length) await check(targets[next++]);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

export const describeTarget = (t: PathTarget): string => `${t.route.method.toUpperCase()} ${t.route.path}${t.param ? ` :${t.param}` : ' +segment'}`;

/**
 * Percent-encodes every UTF-16 code unit's WTF-8 bytes: a lone surrogate becomes its own
 * three bytes (`\ud800` → `%ED%A0%80`) where Buffer.from would send U+FFFD.
 */
export function percentEncodeWtf8(text: string): string {
  const bytes: number[] = [];
  for (const char of text) {
    const cp = char.codePointAt(0)!;
    if (cp < 0x80) bytes.push(cp);
    else if (cp < 0x800) bytes.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
    else if (cp < 0x10000) bytes.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
    else bytes.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
  }
  return bytes.map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

/**
 * Segments no service can store or decode, one of each kind: NUL, lone surrogates (WTF-8),
 * bytes that are not UTF-8, malformed escapes. Every route must answer each with 400 or 404.
 */
export const UNSTORABLE_SEGMENTS: readonly string[] = ['%00', 'a%00b', '%ED%A0%80', 'a%ED%B0%80b', '%FF', '%C0%AF', '%E0%A4%A', '%'];

/** True when `segment` (as sent) does not decode, or decodes to text PostgreSQL cannot store: it must be refused. */
export function mustRefuseSegment(segment: string): boolean {
  try {
    return !isStorableText(decodeURIComponent(segment));
  } catch {
    return true;
  }
}

const TEN_KB = 10 * 1024;
const NASTY = [
  '\u0000',
  '\u0001',
  '\u001f',
  '\u007f',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\ufeff',
  '\ufffd',
  '\u202e',
  '\u2028',
  '/',
  '\\',
  '%',
  '?',
  '#',
  '&',
  '=',
  '+',
  ' ',
  '.',
  '"',
  "'",
  '😀',
  'é',
  '\n',
];
const nastyUnit = fc.oneof(
  fc.constantFrom(...NASTY),
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
);

/**
 * Path segments as a client may send them (already percent-encoded): nasty characters (NUL,
 * lone surrogates), raw bytes, malformed escapes, encoded slashes, 10 KB segments, unicode,
 * numbers at the limits of every integer type, UUIDs near the real thing.
 */
export const pathSegment: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: nastyUnit, minLength: 1, maxLength: 24 }).map(percentEncodeWtf8) },
  {
    weight: 2,
    arbitrary: fc.uint8Array({ minLength: 1, maxLength: 12 }).map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      ...UNSTORABLE_SEGMENTS,
      `${'1'.repeat(16)}%00`,
      '%00'.repeat(50),
      '%F0%9F%98%80%ED%A0%BD',
      '%C3',
      '%F8%88%80%80%80',
      '%zz',
      'a%',
      '%%00',
      '%G0',
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom('%2F', 'a%2Fb', '%2f%2f', '..%2F..%2Fetc', '%5C', '%2E', '%2E%2E', '..', '.', '%20', '~', '%3F', '%23') },
  { weight: 1, arbitrary: fc.constantFrom('x'.repeat(TEN_KB), '9'.repeat(TEN_KB), '%C3%A9'.repeat(TEN_KB / 6), '%F0%9F%98%80'.repeat(TEN_KB / 12)) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).map(encodeURIComponent) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 40 }).map(encodeURIComponent) },
  {
    weight: 2,
    arbitrary: fc.oneof(
      fc.constantFrom(
        '0',
        '-0',
        '-1',
        '1',
        '2147483647',
        '2147483648',
        '-2147483649',
        '9007199254740993',
        '9223372036854775807',
        '9223372036854775808',
        '18446744073709551616',
        '1e309',
        '1.5',
        'NaN',
        'Infinity',
        '0x1F',
        '00000000000000000001',
      ),
      fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.uuid(),
      fc.uuid().map((u) => u.toUpperCase()),
      fc.uuid().map((u) => `${u}%00`),
      fc.uuid().map((u) => `{${u}}`),
    ),
  },
);

/** What the walk needs from a booted app: credentials that pass its gate, a stored value per parameter, its error body. */
export interface PathWalkSetup {
  app: INestApplication;
  http: Server;
  /** Sent with every request (credentials of every source the routes accept). */
  headers: Record<string, string>;
  /** A stored value for every path parameter, so that only the generated one can be wrong. */
  valid: Record<string, string>;
  /** Fails unless a refusal carries the service's error body. */
  assertErrorBody(res: request.Response, url: string): void;
  /** Targets the walk must find (`GET /api/Templates/:id :id`): an enumeration that found nothing cannot pass. */
  expected: string[];
}

/** Runs of the property; FC_RUNS=2000 for a longer hunt. */
const RUNS = Number(process.env.FC_RUNS ?? 200);
const TIMEOUT = 180_000 * Math.max(1, RUNS / 200);

/**
 * Walks every route of a booted app (`setup` is read once the enclosing block's beforeAll has
 * run), putting generated segments in each path parameter with credentials that pass the
 * gate: never a 5xx; a segment that cannot be decoded or stored is refused with 400 or 404;
 * every refusal is the service's error body.
 */
export function describePathParameterWalk(setup: () => PathWalkSetup): void {
  describe('every path parameter of every route', () => {
    let s: PathWalkSetup;
    let targets: PathTarget[];

    beforeAll(() => {
      s = setup();
      targets = pathTargets(appRoutes(s.app));
    });

    async function call(target: PathTarget, segment: string): Promise<void> {
      const url = targetUrl(target, segment, s.valid);
      const req = request(s.http)[target.route.method](url).set(s.headers);
      const res = await (['post', 'put', 'patch'].includes(target.route.method) ? req.send({}) : req);
      const failed = (why: string) => new Error(`${describeTarget(target)}: ${why}: ${res.status} for ${url.slice(0, 300)}: ${res.text?.slice(0, 300)}`);
      if (res.status >= 500) throw failed('server error');
      if (mustRefuseSegment(segment) && res.status !== 400 && res.status !== 404) throw failed('not refused with 400 or 404');
      if (res.status >= 400) s.assertErrorBody(res, url);
    }

    it('finds every route the app serves', () => {
      const walked = targets.map(describeTarget);
      expect(walked).toEqual(expect.arrayContaining(s.expected));
    });

    it(
      'refuses each kind of undecodable or unstorable segment with 400 or 404, on every parameter of every route',
      async () => {
        await eachTarget(targets, async (target) => {
          for (const segment of UNSTORABLE_SEGMENTS) await call(target, segment);
        });
      },
      TIMEOUT,
    );

    it(
      "never answers 5xx to generated segments, and refuses in the service's error body",
      async () => {
        await fc.assert(fc.asyncProperty(fc.constantFrom(...targets), pathSegment, call), { numRuns: RUNS });
      },
      TIMEOUT,
    );
  });
}
