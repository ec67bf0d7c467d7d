import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FIELDS, salesFile } from '../../../tools/sales-file';
import { parseArgs, planParts, uploadFile } from '../../../tools/sales-upload';
import { startIngest, upload, type IngestApp } from './support/sales-test';

/** The upload tool (tools/sales-upload.js) against the running service, with small parts so files split. */
describe('ingest:upload tool', () => {
  let t: IngestApp;
  let dir: string;

  beforeAll(async () => {
    t = await startIngest({ INGEST_MAX_CONCURRENT_UPLOADS: '1' });
    dir = mkdtempSync(join(tmpdir(), 'sales-upload-'));
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const make = async (name: string, format: 'csv' | 'json', rows: number) => {
    const file = join(dir, name);
    await pipeline(salesFile({ format, rows, invalidEvery: 50 }), createWriteStream(file));
    return file;
  };
  const options = (file: string, key: string, partBytes: number) =>
    parseArgs(['--file', file, '--url', `http://127.0.0.1:${t.port}`, '--api-key', key, '--part-bytes', String(partBytes), '--retries', '4']);
  const stored = async (account: string) =>
    (await t.sql.one<{ n: number }>('SELECT count(*)::int AS n FROM ingest_push.sales WHERE account_id = $1', [account]))!.n;

  it.each([['csv' as const], ['json' as const]])('splits a %s file on record boundaries into parts under the limit, each a valid file', async (format) => {
    const { key, accountId } = await t.apiKey();
    const file = await make(`sales.${format}`, format, 3000);
    const plan = await planParts(file, format, 200_000);
    expect(plan.parts.length).toBeGreaterThan(3);
    for (let i = 1; i < plan.parts.length; i++) expect(plan.parts[i].start).toBeGreaterThanOrEqual(plan.parts[i - 1].end);
    const result = await uploadFile(options(file, key, 200_000));
    expect(result.parts).toHaveLength(plan.parts.length);
    expect(result.totals).toEqual({ received: 3000, inserted: 2940, updated: 0, rejected: 60 });
    expect(await stored(accountId)).toBe(2940);
    expect(statSync(`${file}.upload-state.json`).size).toBeGreaterThan(0);
  });

  it('resumes: a rerun skips the parts the service confirmed and sends only the rest', async () => {
    const { key, accountId } = await t.apiKey();
    const file = await make('resume.csv', 'csv', 2000);
    const first = await uploadFile(options(file, key, 150_000));
    expect(first.parts.every((p) => !('skipped' in p))).toBe(true);
    // Forget the last part's confirmation, as if the first run had died during it.
    const stateFile = `${file}.upload-state.json`;
    const state = JSON.parse(require('node:fs').readFileSync(stateFile, 'utf8'));
    delete state.parts[state.parts.length - 1].ingestion_id;
    writeFileSync(stateFile, JSON.stringify(state));
    const again = await uploadFile(options(file, key, 150_000));
    expect(again.parts.slice(0, -1).every((p) => p.skipped === 'already confirmed')).toBe(true);
    expect(again.parts[again.parts.length - 1]).not.toHaveProperty('skipped');
    expect(again.parts[again.parts.length - 1].updated).toBeGreaterThan(0);
    expect(await stored(accountId)).toBe(1960);
  });

  it('retries a part the service turned away (503 while busy) and finishes', async () => {
    const { key, accountId } = await t.apiKey();
    const file = await make('retry.csv', 'csv', 300);
    // Hold the only upload slot for a moment.
    const hog = new Readable({ read() {} });
    const holding = upload(t.port, { apiKey: key, 'Content-Type': 'application/csv' }, hog);
    hog.push(FIELDS.join(';') + '\n');
    await new Promise((r) => setTimeout(r, 100));
    setTimeout(() => hog.push(null), 1500);
    const result = await uploadFile(options(file, key, 1024 ** 3));
    expect((await holding).status).toBe(201);
    expect(result.totals.received).toBe(300);
    expect(await stored(accountId)).toBe(294);
  }, 30_000);
});
