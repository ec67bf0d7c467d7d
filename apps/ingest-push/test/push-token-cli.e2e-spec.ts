import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { workerDatabaseUrl } from '@app/testkit';
import { cli } from '../src/push/push-token.cli';
import { request } from './support/push-test';
import { usePush } from './support/use-push';

/** What `npm run -s push:token -- [--name N] [--account A]` runs: the same arguments as ingest:apikey. */
describe('push:token CLI', () => {
  const push = usePush();

  const accountOf = async (token: string) =>
    (await push.app.sql.one<{ id: string; name: string }>(
      'SELECT a.id, a.name FROM ingest_push.push_tokens t JOIN ingest_push.accounts a ON a.id = t.account_id WHERE t.id = $1',
      [token.split('_')[1]],
    ))!;

  it('prints a token of the named account, created on first use, that the push routes accept; the same name is the same account', async () => {
    const account = `north-shop-${randomUUID().slice(0, 8)}`;
    const url = await workerDatabaseUrl();
    const [a, b] = await Promise.all([cli.run(url, cli.parse(['--name', 'sender', '--account', account])), cli.run(url, cli.parse(['--account', account]))]);
    expect(a).toMatch(/^push_[0-9a-f-]{36}_[A-Za-z0-9]+$/);
    expect(await accountOf(a)).toEqual({ id: (await accountOf(b)).id, name: account });
    expect((await accountOf(await cli.run(url, cli.parse(['--account', `${account}-2`])))).id).not.toBe((await accountOf(a)).id);
    await request(push.app.http).get('/api/pushm/bulk/00000000-0000-4000-8000-000000000000').set('authorization', `Bearer ${a}`).expect(404);
  });

  it('refuses bad arguments with one sentence', () => {
    expect(() => cli.parse(['--account', ' '])).toThrow('--account must be 1 to 255 characters.');
    expect(() => cli.parse(['--bogus', 'x'])).toThrow(/Unexpected argument "--bogus"/);
  });
});
