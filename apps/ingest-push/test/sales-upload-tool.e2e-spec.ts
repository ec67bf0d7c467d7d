import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { eventually, metricSample } from '@app/testkit';
import request from 'supertest';
import { FIELDS } from './support/sale-fixtures';
import { generateFile, prepareSalesTool, runUploadTool, startIngest, upload, type IngestApp } from './support/sales-test';

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

  it.each([['csv' as const], ['json' as const]])('splits a %s file on record boundaries into valid parts under the limit and stores every row', async (format) => {
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
    expect(stderr).toMatch(/rows\/s.*ETA/);
  });

  it('resumes: a rerun skips the parts the service confirmed and sends only the rest', async () => {
    const { key, accountId } = await t.apiKey();
    const file = await make('resume.csv', 'csv', 2000);
    const first = await run(file, key, 150_000);
    expect(first.code).toBe(0);
    // Forget the last part's confirmation, as if the first run had died during it.
    const stateFile = `${file}.upload-state.json`;
    expect(statSync(stateFile).size).toBeGreaterThan(0);
    const state = JSON.parse(readFileSync(stateFile, 'utf8')) as { parts: Array<{ ingestion_id?: string }> };
    delete state.parts[state.parts.length - 1].ingestion_id;
    writeFileSync(stateFile, JSON.stringify(state));
    const again = await run(file, key, 150_000);
    const parts = again.lines.filter((l) => 'part' in l);
    expect(parts.slice(0, -1).every((p) => p.skipped === 'already confirmed')).toBe(true);
    expect(parts[parts.length - 1]).not.toHaveProperty('skipped');
    expect(parts[parts.length - 1].updated).toEqual(expect.any(Number));
    expect(await stored(accountId)).toBe(1960);
  });

  it('retries a part the service turned away (503 while busy) and finishes', async () => {
    const { key, accountId } = await t.apiKey();
    const file = await make('retry.csv', 'csv', 300);
    // Hold the only upload slot until the tool has been turned away once.
    const hog = new Readable({ read() {} });
    const holding = upload(t.port, { apiKey: key, 'Content-Type': 'application/csv' }, hog);
    hog.push(FIELDS.join(';') + '\n');
    await eventually(async () => (await t.sql.one("SELECT 1 FROM ingest_push.sales_ingestions WHERE account_id = $1 AND status = 'running'", [accountId])) ?? undefined);
    const busy = async () => metricSample((await request(t.http).get('/metrics').expect(200)).text, 'http_request_duration_seconds_count', { method: 'POST', status: '503' }) ?? 0;
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
