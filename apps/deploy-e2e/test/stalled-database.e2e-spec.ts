import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generateEncryptionKeys } from '@app/secrets';
import { eventually, freePort, freshDatabase } from '@app/testkit';
import { ROOT } from '../src/workspace';
import { builtEntry, hasExited, startProcess, statusOf, stopProcesses, type AppProcess, type BuiltApp } from './support/built-app';
import { stallProxy, type StallProxy } from './support/stall-proxy';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureBuilt } = require(join(ROOT, 'tools/app-build.js')) as { ensureBuilt(app: string): Promise<void> };
const run = promisify(execFile);

/** The settings under test, small so the test is quick. */
const CONNECT_S = 1;
const STATEMENT_S = 1;
/** The documented bound on a request's wait for PostgreSQL: pool/connect timeout + statement timeout + the client's 2 s. */
const BOUND_MS = (CONNECT_S + STATEMENT_S) * 1000 + 2000;
/** A loaded test machine answers a little late. */
const SLACK_MS = 2000;

const UNAVAILABLE = { message: 'Service temporarily unavailable; retry shortly.', retry_after: 5 };

/**
 * PostgreSQL frozen (no byte moves, through a proxy in front of DATABASE_URL): every service answers a request that
 * needs it with 503 and Retry-After, in its own error body, within the documented bound, and serves again once it thaws.
 * Before, no connect, pool or statement timeout was set and such a request waited as long as the freeze.
 */
describe('a stalled PostgreSQL', () => {
  const procs: AppProcess[] = [];
  let proxy: StallProxy;
  const encryptionKeys = generateEncryptionKeys('stall');
  const apps: Array<{ app: BuiltApp; url: string; headers: Record<string, string>; body: (b: unknown) => void }> = [];

  beforeAll(async () => {
    for (const app of ['docstore', 'gateway', 'ingest-push']) await ensureBuilt(app);
    const direct = await freshDatabase(`t_${process.env.TEST_RUN_ID}_stall`);
    proxy = await stallProxy(direct);
    const env = { DATABASE_URL: direct, ENCRYPTION_KEYS: encryptionKeys };
    // The first command of each app migrates its schema (on the direct URL, as the apps do).
    const mint = async (app: BuiltApp, args: string[]) =>
      (await run(process.execPath, [builtEntry(app), ...args], { cwd: ROOT, env: { PATH: process.env.PATH, ...env } })).stdout.trim();
    const client = randomUUID();
    const token = await mint('docstore', ['token', '--client', client]);
    const apikey = await mint('gateway', ['apikey', '--phone', '15550109999', '--phone-id', 'stall']);
    const salesKey = await mint('ingest-push', ['apikey']);
    const start = async (app: BuiltApp) => {
      const port = await freePort();
      const proc = startProcess(app, [builtEntry(app)], {
        ...env,
        DATABASE_URL: proxy.url,
        DATABASE_DIRECT_URL: direct,
        DB_CONNECT_TIMEOUT_SECONDS: String(CONNECT_S),
        DB_STATEMENT_TIMEOUT_SECONDS: String(STATEMENT_S),
        DB_POOL_SIZE: '4',
        REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
        REDIS_PREFIX: `test:${process.env.TEST_RUN_ID}:stall-${app}:`,
        WEBHOOK_WORKERS: 'off',
        PUSH_WORKERS: 'off',
        LOG_LEVEL: 'error',
        PORT: String(port),
      });
      procs.push(proc);
      return `http://127.0.0.1:${port}`;
    };
    const [docstore, gateway, ingest] = await Promise.all([start('docstore'), start('gateway'), start('ingest-push')]);
    apps.push(
      {
        app: 'docstore',
        url: `${docstore}/api/v1/client/${client}/production/context/shop/type/product/sku-1`,
        headers: { authorization: `Bearer ${token}` },
        body: (b) => expect(b).toEqual(UNAVAILABLE),
      },
      {
        app: 'gateway',
        url: `${gateway}/api/Messages/${randomUUID()}`,
        headers: { apikey, version: '6.0' },
        body: (b) => expect(b).toMatchObject({ error: { message: 'Service temporarily unavailable', type: 'OAuthException', code: 2 } }),
      },
      {
        app: 'ingest-push',
        url: `${ingest}/DataInserterSales/api/sales/ingestions`,
        headers: { apiKey: salesKey },
        body: (b) => expect(b).toEqual(UNAVAILABLE),
      },
    );
    // Each answers before the freeze (its pool holds open connections, which then stall mid-statement).
    for (const a of apps) {
      const proc = procs.find((p) => p.name === a.app)!;
      const first = await eventually(async () =>
        hasExited(proc.child) ? `exited: ${proc.output.slice(-800)}` : (await statusOf(a.url, a.headers)) || undefined,
      );
      expect({ app: a.app, status: first }).toEqual({ app: a.app, status: expect.any(Number) });
      expect(first).not.toBe(503);
    }
  }, 900_000);

  afterAll(async () => {
    proxy?.resume();
    await stopProcesses(procs);
    await proxy?.close();
  }, 30_000);

  it(`answers 503 with Retry-After within ${BOUND_MS / 1000} s, in each service's body, and serves again when it thaws`, async () => {
    proxy.freeze();
    const answers = await Promise.all(
      apps.map(async (a) => {
        const started = Date.now();
        try {
          const res = await fetch(a.url, { headers: a.headers, signal: AbortSignal.timeout(BOUND_MS + SLACK_MS + 5000) });
          const body = (await res.json()) as unknown;
          return { app: a.app, status: res.status, retryAfter: res.headers.get('retry-after'), ms: Date.now() - started, body };
        } catch {
          return { app: a.app, status: `no answer within ${Date.now() - started} ms`, ms: Date.now() - started };
        }
      }),
    );
    expect(answers.map(({ app, status, retryAfter }) => ({ app, status, retryAfter }))).toEqual(apps.map(({ app }) => ({ app, status: 503, retryAfter: '5' })));
    for (const [i, a] of apps.entries()) a.body(answers[i].body);
    for (const { ms } of answers) expect(ms).toBeLessThan(BOUND_MS + SLACK_MS);

    proxy.resume();
    const after = await Promise.all(apps.map((a) => eventually(async () => ((s) => (s !== 0 && s !== 503 ? s : undefined))(await statusOf(a.url, a.headers)))));
    expect(after.every((s) => s < 500)).toBe(true);
  }, 60_000);
});
