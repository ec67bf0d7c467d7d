import { randomUUID } from 'node:crypto';
import { workerDatabaseUrl } from '@app/testkit';
import request from 'supertest';
import { INGEST_PUSH_CLI } from '../src/cli/ingest-push.cli';
import { SALES_PATH, startIngest, type IngestApp } from './support/sales-test';

/** What `main.js apikey` (`npm run -s ingest:apikey -- [--name N] [--account A]`) runs. */
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
  const mint = async (...argv: string[]) => INGEST_PUSH_CLI.run(['apikey', ...argv], await workerDatabaseUrl());
  const unique = (base: string) => `${base}-${randomUUID().slice(0, 8)}`;

  it('prints a key of the named account, created on first use, that the sales routes accept, and stores only its hash', async () => {
    const account = unique('north-shop');
    const key = await mint('--name', 'ops', '--account', account);
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
    const [a, b] = await Promise.all([mint('--account', account), mint('--account', account, '--name', 'second')]);
    expect((await accountOf(a)).id).toBe((await accountOf(b)).id);
    const other = await mint('--account', unique('acme'));
    expect((await accountOf(other)).id).not.toBe((await accountOf(a)).id);
    expect((await accountOf(await mint())).name).toBe('default');
    expect((await accountOf(await mint('--name', 'bench'))).name).toBe('default');
  });

  it('refuses bad arguments with one sentence', () => {
    expect(() => INGEST_PUSH_CLI.parse(['apikey', '--account', ' '])).toThrow('--account must be 1 to 255 characters.');
    expect(() => INGEST_PUSH_CLI.parse(['apikey', '--account', 'x'.repeat(256)])).toThrow('--account must be 1 to 255 characters.');
    expect(() => INGEST_PUSH_CLI.parse(['apikey', '--bogus', 'x'])).toThrow(
      /^Unexpected argument "--bogus"; usage: node apps\/ingest-push\/src\/main\.js apikey \[--name <name>\] \[--account <account>\]\.$/,
    );
    expect(() => INGEST_PUSH_CLI.parse(['apikey', '--name', 'a', '--name', 'b'])).toThrow(/^--name is given twice; usage/);
    expect(() => INGEST_PUSH_CLI.parse(['apikey', 'extra'])).toThrow(/^Unexpected argument "extra"; usage/);
    expect(() => INGEST_PUSH_CLI.parse(['apkey'])).toThrow('Unknown command "apkey"; choose from apikey, push-token, migrate, or none to start the service.');
  });
});
