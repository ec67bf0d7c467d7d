import { randomUUID } from 'node:crypto';
import { workerDatabaseUrl } from '@app/testkit';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import { INGEST_PUSH_CLI } from '../src/cli/ingest-push.cli';
import { startIngest, type IngestApp } from './support/sales-test';

/** One account model for sales and push: a name is one account, whoever uses it first. */
describe('accounts', () => {
  let t: IngestApp;
  beforeAll(async () => {
    t = await startIngest({ DB_POOL_SIZE: '8' });
  });
  afterAll(() => t.close());

  const accountsNamed = (name: string) => t.sql.rows<{ id: string }>('SELECT id FROM ingest_push.accounts WHERE name = $1', [name]);

  it('gives concurrent first uses of a name one account', async () => {
    const accounts = t.get(AccountsRepository);
    for (let round = 0; round < 5; round++) {
      const name = `race-${randomUUID()}`;
      const ids = await Promise.all(Array.from({ length: 16 }, () => accounts.idNamed(name)));
      const rows = await accountsNamed(name);
      expect(rows).toHaveLength(1);
      expect(new Set(ids)).toEqual(new Set([rows[0].id]));
    }
  });

  it('puts a sales API key and a push token minted with the same --account in one account', async () => {
    const account = `shop-${randomUUID().slice(0, 8)}`;
    const url = await workerDatabaseUrl();
    const [key, token] = await Promise.all([
      INGEST_PUSH_CLI.run(['apikey', '--account', account], url),
      INGEST_PUSH_CLI.run(['push-token', '--account', account], url),
    ]);
    const [account1] = await t.sql.rows<{ account_id: string }>('SELECT account_id FROM ingest_push.sales_api_keys WHERE id = $1', [key.split('_')[1]]);
    const [account2] = await t.sql.rows<{ account_id: string }>('SELECT account_id FROM ingest_push.push_tokens WHERE id = $1', [token.split('_')[1]]);
    expect(account1.account_id).toBe(account2.account_id);
    expect(await accountsNamed(account)).toEqual([{ id: account1.account_id }]);
  });
});
