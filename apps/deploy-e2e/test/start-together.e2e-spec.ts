import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateEncryptionKeys } from '@app/secrets';
import { eventually, freePort, freshDatabase } from '@app/testkit';
import { Client } from 'pg';
import { ROOT } from '../src/workspace';
import {
  builtEntry as entry,
  hasExited as exited,
  startProcess,
  statusOf,
  stopProcesses,
  type AppProcess as Proc,
  type BuiltApp as App,
} from './support/built-app';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureBuilt } = require(join(ROOT, 'tools/app-build.js')) as { ensureBuilt(app: string): Promise<void> };

const APPS: readonly App[] = ['docstore', 'gateway', 'ingest-push'];
const REPLICAS = 3;
/** Every process started together must be healthy (or done) within this, as the deployments need. */
const BOUND_MS = 60_000;

const dist = (app: App) => join(ROOT, 'dist', app);

/** The credential commands of a provisioning script, as `main.js <command>` runs them. */
const COMMANDS: Array<{ app: App; argv: (i: number) => string[]; prints: RegExp }> = [
  { app: 'docstore', argv: () => ['token', '--client', randomUUID()], prints: /^[0-9a-f-]{36}\|\S+\n$/ },
  { app: 'gateway', argv: (i) => ['apikey', '--phone', `1555010${String(i).padStart(4, '0')}`, '--phone-id', `together-${i}`], prints: /^gw_\S+\n$/ },
  { app: 'ingest-push', argv: () => ['apikey'], prints: /^sales_\S+\n$/ },
  { app: 'ingest-push', argv: () => ['push-token'], prints: /^push_\S+\n$/ },
];

/**
 * Processes started at the same moment on a fresh database, as `kubectl apply -k` starts a migrate Job and Deployments
 * with several replicas, or a provisioning script its commands: one migrates each schema while the others wait for its
 * lock without holding a transaction, so its concurrent index builds finish. Before, the waiters' blocked
 * `pg_advisory_lock` held transactions the index build waited for, and nothing ever started.
 */
describe('processes started together on a fresh database', () => {
  const procs: Proc[] = [];
  const encryptionKeys = generateEncryptionKeys('together');
  let tmp: string;

  const start = (name: string, args: string[], env: Record<string, string>): Proc => {
    const proc = startProcess(name, args, { ENCRYPTION_KEYS: encryptionKeys, LOG_LEVEL: 'warn', ...env });
    procs.push(proc);
    return proc;
  };

  /** Resolves once `proc` has exited, or says it did not within the bound. */
  const finished = async (proc: Proc, deadline: number) =>
    eventually(async () =>
      exited(proc.child) ? { name: proc.name, code: proc.child.exitCode } : Date.now() > deadline ? { name: proc.name, code: 'still running' } : undefined,
    );

  beforeAll(async () => {
    for (const app of APPS) await ensureBuilt(app);
    tmp = mkdtempSync(join(tmpdir(), 'together-'));
  }, 900_000);

  afterAll(async () => {
    await stopProcesses(procs);
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }, 30_000);

  let databaseUrl: string;
  const replicas: Array<Proc & { app: App; port: number }> = [];

  it(`${REPLICAS} replicas of each app and its migrate Job, started at once, are healthy (the Job done) within 60 s`, async () => {
    databaseUrl = await freshDatabase(`t_${process.env.TEST_RUN_ID}_together`);
    const ports = await Promise.all(APPS.flatMap(() => Array.from({ length: REPLICAS }, () => freePort())));
    const base = (app: App) => ({
      DATABASE_URL: databaseUrl,
      REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
      REDIS_PREFIX: `test:${process.env.TEST_RUN_ID}:together-${app}:`,
    });
    const started = Date.now();
    const jobs = APPS.map((app) => start(`${app} migrate Job`, [entry(app), 'migrate'], base(app)));
    for (const [a, app] of APPS.entries()) {
      for (let i = 0; i < REPLICAS; i++) {
        const port = ports[a * REPLICAS + i];
        replicas.push({ ...start(`${app}-${i + 1}`, [entry(app)], { ...base(app), PORT: String(port) }), app, port });
      }
    }
    const deadline = started + BOUND_MS;
    const health = await Promise.all(
      replicas.map((r) =>
        eventually(async () => {
          if (exited(r.child)) return `${r.name} exited: ${r.output.slice(-800)}`;
          if (Date.now() > deadline) return `${r.name} not healthy within 60 s`;
          return (await statusOf(`http://127.0.0.1:${r.port}/health`)) === 200 ? 'healthy' : undefined;
        }),
      ),
    );
    expect(health).toEqual(replicas.map(() => 'healthy'));
    const done = await Promise.all(jobs.map((job) => finished(job, deadline)));
    expect(done).toEqual(jobs.map((job) => ({ name: job.name, code: 0 })));
  }, 120_000);

  it('14 credential commands at once on a fresh database all succeed', async () => {
    const url = await freshDatabase(`t_${process.env.TEST_RUN_ID}_together_cli`);
    const calls = Array.from({ length: 14 }, (_, i) => ({ i, ...COMMANDS[i % COMMANDS.length] }));
    const deadline = Date.now() + BOUND_MS;
    const commands = calls.map(({ app, argv, i }) => start(`${app} ${argv(i)[0]} #${i}`, [entry(app), ...argv(i)], { DATABASE_URL: url }));
    await Promise.all(commands.map((c) => finished(c, deadline)));
    expect(commands.map((c) => ({ code: c.child.exitCode, output: c.output }))).toEqual(
      calls.map(({ prints }) => ({ code: 0, output: expect.stringMatching(prints) })),
    );
  }, 120_000);

  it('a release adding a CONCURRENTLY index migrates, two processes at once, while the previous release serves', async () => {
    expect(replicas.length).toBe(APPS.length * REPLICAS);
    // The next release: this build's migrations and two more, a slow one (a backfill) and an index built concurrently
    // on the deliveries table the running replicas' webhook workers use.
    const script = join(tmp, 'next-release.js');
    writeFileSync(
      script,
      `const { migrateDatabaseAt, createIndexConcurrently, dropIndex } = require(${JSON.stringify(join(dist('docstore'), 'libs/database/src'))});
const { docstoreMigrations } = require(${JSON.stringify(join(dist('docstore'), 'apps/docstore/src/database/docstore.migrations'))});
class Backfill1999999999998 { name = 'Backfill1999999999998'; up(q) { return q.query('SELECT pg_sleep(2)'); } down() {} }
class NextReleaseIndex1999999999999 {
  name = 'NextReleaseIndex1999999999999';
  transaction = false;
  up(q) { return createIndexConcurrently(q, 'webhook_deliveries_next_release_idx', 'webhook_deliveries', '(queued_at)'); }
  down(q) { return dropIndex(q, 'webhook_deliveries_next_release_idx'); }
}
migrateDatabaseAt(process.env.DATABASE_URL, { schema: 'docstore', entities: [], migrations: [...docstoreMigrations, Backfill1999999999998, NextReleaseIndex1999999999999] })
  .then(() => console.log('migrated'), (error) => { console.error(error.message); process.exitCode = 1; });
`,
    );
    const deadline = Date.now() + BOUND_MS;
    const next = [1, 2].map((i) => start(`next release #${i}`, [script], { DATABASE_URL: databaseUrl }));
    // The previous release keeps answering while the next one migrates: its docstore replicas are asked at every look.
    const answers: number[] = [];
    const docstores = replicas.filter((r) => r.app === 'docstore');
    const done = await eventually(async () => {
      answers.push(...(await Promise.all(docstores.map((r) => statusOf(`http://127.0.0.1:${r.port}/health`)))));
      if (next.every((p) => exited(p.child))) return next.map((p) => ({ name: p.name, code: p.child.exitCode }));
      return Date.now() > deadline ? next.map((p) => ({ name: p.name, code: exited(p.child) ? p.child.exitCode : 'still running' })) : undefined;
    });
    expect({ done, output: next.map((p) => p.output) }).toEqual({ done: next.map((p) => ({ name: p.name, code: 0 })), output: ['migrated\n', 'migrated\n'] });
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.filter((s) => s !== 200)).toEqual([]);
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query(
        `SELECT x.indisvalid AS valid FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid WHERE c.relname = 'webhook_deliveries_next_release_idx'`,
      );
      expect(rows).toEqual([{ valid: true }]);
    } finally {
      await db.end();
    }
  }, 120_000);
});
