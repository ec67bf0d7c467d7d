import { randomUUID } from 'node:crypto';
import { workerDatabaseUrl } from '@app/testkit';
import request from 'supertest';
import { cli } from '../src/sales/sales-api-key.cli';
import { SALES_PATH, startIngest, type IngestApp } from './support/sales-test';

/** What `npm run -s ingest:apikey -- [--name N] [--account A]` runs (tools/app-cli.js calls `cli.parse` then `cli.run`). */
describe('ingest:apikey CLI', () => {
  let t: IngestApp;
  beforeAll(async () => {
    t = await startIngest();
  });
  afterAll(() => t.close());

  const accountOf = async (key: string) =>
    (await t.sql.one<{ id: string; name: string }>(
      'SELECT a.id, a.name FROM ingest_push.sales_api_keys k JOIN ingest_push.accounts a ON a.id = k.account_id WHERE k.id = $1',
      [key.split('_')[1]],
    ))!;
  const unique = (base: string) => `${base}-${randomUUID().slice(0, 8)}`;

  it('prints a key of the named account, created on first use, that the sales routes accept, and stores only its hash', async () => {
    const account = unique('north-shop');
    const key = await cli.run(await workerDatabaseUrl(), cli.parse(['--name', 'ops', '--account', account]));
    expect(key).toMatch(/^sales_[0-9a-f-]{36}_[A-Za-z0-9]{40}$/);
    const id = key.split('_')[1];
    const row = await t.sql.one<{ name: string; secret_hash: Buffer }>('SELECT name, secret_hash FROM ingest_push.sales_api_keys WHERE id = $1', [id]);
    expect(row!.name).toBe('ops');
    expect(row!.secret_hash.toString('utf8')).not.toContain(key.split('_')[2]);
    expect((await accountOf(key)).name).toBe(account);
    const res = await request(t.http).get(`${SALES_PATH}/ingestions/00000000-0000-4000-8000-000000000000`).set('apiKey', key);
    expect(res.status).toBe(404);
  });

  it('adds keys with the same --account name to one account; another name is another account; no --account is "default"', async () => {
    const account = unique('acme');
    const url = await workerDatabaseUrl();
    const [a, b] = await Promise.all([cli.run(url, cli.parse(['--account', account])), cli.run(url, cli.parse(['--account', account, '--name', 'second']))]);
    expect((await accountOf(a)).id).toBe((await accountOf(b)).id);
    const other = await cli.run(url, cli.parse(['--account', unique('acme')]));
    expect((await accountOf(other)).id).not.toBe((await accountOf(a)).id);
    expect((await accountOf(await cli.run(url, cli.parse([])))).name).toBe('default');
    // As bench/ingest.ts calls it, with the arguments built by hand.
    expect((await accountOf(await cli.run(url, { name: 'bench' }))).name).toBe('default');
  });

  it('refuses bad arguments with one sentence', () => {
    expect(() => cli.parse(['--account', ' '])).toThrow('--account must be 1 to 255 characters.');
    expect(() => cli.parse(['--account', 'x'.repeat(256)])).toThrow('--account must be 1 to 255 characters.');
    expect(() => cli.parse(['--bogus', 'x'])).toThrow(/Unexpected argument "--bogus"/);
  });
});
