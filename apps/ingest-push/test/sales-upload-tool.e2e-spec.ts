import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Client } from 'pg';
import { eventually, metricSample, workerDatabaseUrl } from '@app/testkit';
import request from 'supertest';
import { FIELDS } from './support/sale-fixtures';
import { generateFile, prepareSalesTool, runUploadTool, startIngest, startUploadTool, upload, type IngestApp } from './support/sales-test';

/** The upload tool (`npm run -s ingest:upload`, apps/sales-upload) against the running service, with small parts so files split. */
describe('ingest:upload tool', () => {
  let t: IngestApp;
  let dir: string;

  beforeAll(async () => {
    await prepareSalesTool();
    t = await startIngest({ INGEST_MAX_CONCURRENT_UPLOADS: '1' });
    dir = mkdtempSync(join(tmpdir(), 'sales-upload-'));
  }, 180_000);
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const make = async (name: string, format: 'csv' | 'json', rows: number) => {
    const file = join(dir, name);
    await generateFile(file, ['--format', format, '--rows', String(rows), '--invalid-every', '50']);
    return file;
  };
  const run = (file: string, key: string, partBytes: number) =>
    runUploadTool(['--file', file, '--url', `http://127.0.0.1:${t.port}`, '--api-key', key, '--part-bytes', String(partBytes), '--retries', '4']);
  const stored = async (account: string) =>
    (await t.sql.one<{ n: number }>('SELECT count(*)::int AS n FROM ingest_push.sales WHERE account_id = $1', [account]))!.n;

  it.each([['csv' as const], ['json' as const]])(
    'splits a %s file on record boundaries into valid parts under the limit and stores every row',
    async (format) => {
      const { key, accountId } = await t.apiKey();
      const file = await make(`sales.${format}`, format, 3000);
      const { code, lines, stderr } = await run(file, key, 200_000);
      expect(stderr).not.toMatch(/refused/);
      expect(code).toBe(0);
      const parts = lines.filter((l) => 'part' in l);
      expect(parts.length).toBeGreaterThan(3);
      expect(parts.every((p) => p.of === parts.length && typeof p.ingestion_id === 'string')).toBe(true);
      expect(lines[lines.length - 1]).toEqual({ total: { received: 3000, inserted: 2940, updated: 0, rejected: 60 }, parts: parts.length });
      expect(await stored(accountId)).toBe(2940);
      // Each part went as one request of at most the part size.
      const sizes = await t.sql.rows<{ bytes: string }>('SELECT bytes FROM ingest_push.sales_ingestions WHERE account_id = $1', [accountId]);
      expect(sizes.every((s) => Number(s.bytes) <= 200_000)).toBe(true);
      // The rate on every line; an ETA only once 2 s of this run have been sent (progress-bar.spec.ts), later than a small file ends.
      expect(stderr).toMatch(/rows\/s, [0-9.]+ MB\/s/);
    },
  );

  it('--gzip: sends every part compressed, stores every row, and a rerun resumes on the same parts', async () => {
    const { key, accountId } = await t.apiKey();
    const file = await make('gzip.csv', 'csv', 2000);
    const gz = (extra: string[] = []) =>
      runUploadTool(['--file', file, '--url', `http://127.0.0.1:${t.port}`, '--api-key', key, '--part-bytes', '150000', '--gzip', ...extra]);
    const first = await gz();
    expect(first.code).toBe(0);
    expect(first.lines[first.lines.length - 1]).toMatchObject({ total: { received: 2000, inserted: 1960, updated: 0, rejected: 40 } });
    const stateFile = `${file}.upload-state.json`;
    const state = JSON.parse(readFileSync(stateFile, 'utf8')) as { parts: Array<{ ingestion_id?: string; outcome?: string }> };
    const n = state.parts.length;
    expect(n).toBeGreaterThan(2);
    // The limit counts decompressed bytes: each part holds at most 150,000 of them, as without --gzip.
    const sizes = await t.sql.rows<{ bytes: string }>('SELECT bytes FROM ingest_push.sales_ingestions WHERE account_id = $1', [accountId]);
    expect(sizes.every((s) => Number(s.bytes) <= 150_000 && Number(s.bytes) > 0)).toBe(true);
    // As if the run had died after recording the last part's id, before sending it.
    const unsent = randomUUID();
    state.parts[n - 1] = { ...state.parts[n - 1], ingestion_id: unsent, outcome: undefined };
    writeFileSync(stateFile, JSON.stringify(state));
    await t.sql.rows('DELETE FROM ingest_push.sales WHERE account_id = $1 AND ingestion_id = $2', [accountId, first.lines[n - 1].ingestion_id]);
    const again = await gz();
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(new RegExp(`^resuming: ${n - 1} of ${n} parts done\n`));
    const parts = again.lines.filter((l) => 'part' in l);
    expect(parts.map((p) => p.skipped ?? 'sent')).toEqual([...Array(n - 1).fill('already confirmed'), 'sent']);
    expect(parts[n - 1].ingestion_id).toBe(unsent);
    expect(await stored(accountId)).toBe(1960);
  });

  it('resumes: a rerun says so, asks the service about parts of unknown outcome, and sends only what it lacks', async () => {
    const { key, accountId } = await t.apiKey();
    const file = await make('resume.csv', 'csv', 2000);
    const first = await run(file, key, 150_000);
    expect(first.code).toBe(0);
    const stateFile = `${file}.upload-state.json`;
    const state = JSON.parse(readFileSync(stateFile, 'utf8')) as { parts: Array<{ ingestion_id?: string; outcome?: string }> };
    const n = state.parts.length;
    expect(state.parts.every((p) => typeof p.ingestion_id === 'string' && p.outcome === 'completed')).toBe(true);
    // As if the first run had died: after sending the last part, before its answer (the service stored it),
    // and after recording the id of the one before, before sending it (the service never saw it).
    delete state.parts[n - 1].outcome;
    const unsent = randomUUID();
    state.parts[n - 2] = { ...state.parts[n - 2], ingestion_id: unsent, outcome: undefined };
    writeFileSync(stateFile, JSON.stringify(state));
    const ingestions = async () =>
      (await t.sql.rows<{ id: string }>('SELECT id FROM ingest_push.sales_ingestions WHERE account_id = $1', [accountId])).map((r) => r.id);
    const before = await ingestions();
    const again = await run(file, key, 150_000);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(new RegExp(`^resuming: ${n - 2} of ${n} parts done\n`));
    expect(again.stderr).not.toMatch(/\b0 rows\/s/);
    const parts = again.lines.filter((l) => 'part' in l);
    expect(parts.map((p) => p.skipped ?? 'sent')).toEqual([...Array(n - 2).fill('already confirmed'), 'sent', 'already confirmed']);
    // Only the unsent part went, under the id recorded for it.
    expect((await ingestions()).sort()).toEqual([...before, unsent].sort());
    expect(await stored(accountId)).toBe(1960);
  });

  it('Ctrl-C while the service merges a part: shows the stage, cancels the part on the service, keeps nothing, exits 130', async () => {
    const { key, accountId } = await t.apiKey();
    const file = await make('cancel.csv', 'csv', 200);
    // Another merge of the same account holds its turn, so the part waits in `merging`.
    const holder = new Client({ connectionString: await workerDatabaseUrl() });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [`sales-merge:${accountId}`]);
      const tool = startUploadTool(['--file', file, '--url', `http://127.0.0.1:${t.port}`, '--api-key', key]);
      await eventually(() => (/server: merging \(200 records\)/.test(tool.stderr()) ? true : undefined));
      expect(tool.stderr()).not.toMatch(/server: merging.*ETA/);
      tool.child.kill('SIGINT');
      const result = await tool.done;
      expect(result.code).toBe(130);
      const [{ id }] = await t.sql.rows<{ id: string }>('SELECT id FROM ingest_push.sales_ingestions WHERE account_id = $1', [accountId]);
      expect(result.stderr).toContain(`part 1 of 1 was cancelled on the service (ingestion ${id}), nothing of it was kept`);
      const state = JSON.parse(readFileSync(`${file}.upload-state.json`, 'utf8')) as { parts: unknown[] };
      expect(state.parts).toEqual([expect.objectContaining({ ingestion_id: id, outcome: 'cancelled' })]);
      await holder.query('SELECT pg_advisory_unlock_all()');
      await eventually(async () =>
        (await t.sql.one<{ status: string }>('SELECT status FROM ingest_push.sales_ingestions WHERE id = $1', [id]))?.status === 'cancelled' ? true : undefined,
      );
      expect(await stored(accountId)).toBe(0);
      // A rerun sends the part again under a new id.
      const again = await run(file, key, 1024 ** 3);
      expect(again.code).toBe(0);
      expect(again.stderr).not.toMatch(/resuming/);
      expect(await stored(accountId)).toBe(196);
    } finally {
      await holder.end();
    }
  }, 30_000);

  it('retries a part the service turned away (503 while busy) and finishes', async () => {
    const { key, accountId } = await t.apiKey();
    const file = await make('retry.csv', 'csv', 300);
    // Hold the only upload slot until the tool has been turned away once.
    const hog = new Readable({ read() {} });
    const holding = upload(t.port, { apiKey: key, 'Content-Type': 'application/csv' }, hog);
    hog.push(FIELDS.join(';') + '\n');
    await eventually(
      async () => (await t.sql.one("SELECT 1 FROM ingest_push.sales_ingestions WHERE account_id = $1 AND status = 'running'", [accountId])) ?? undefined,
    );
    const busy = async () =>
      metricSample((await request(t.http).get('/metrics').expect(200)).text, 'http_request_duration_seconds_count', { method: 'POST', status: '503' }) ?? 0;
    const turnedAway = await busy();
    const running = run(file, key, 1024 ** 3);
    await eventually(async () => ((await busy()) > turnedAway ? true : undefined));
    hog.push(null);
    const result = await running;
    expect((await holding).status).toBe(201);
    expect(result.stderr).toMatch(/503, retrying/);
    expect(result.code).toBe(0);
    expect(await stored(accountId)).toBe(294);
  }, 30_000);

  it('stops with a message when the service refuses a part for good (401)', async () => {
    const file = await make('refused.csv', 'csv', 10);
    const result = await run(file, 'sales_00000000-0000-4000-8000-000000000000_nope', 1024 ** 3);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/refused with 401/);
  });
});
