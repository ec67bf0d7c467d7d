import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { workerDatabaseUrl } from '@app/testkit';
import { INGEST_PUSH_CLI } from '../src/cli/ingest-push.cli';
import { request } from './support/push-test';
import { usePush } from './support/use-push';

/** What `main.js push-token` (`npm run -s push:token -- [--name N] [--account A]`) runs: the same options as `apikey`. */
describe('push:token CLI', () => {
  const push = usePush();

  const mint = (url: string, ...argv: string[]) => INGEST_PUSH_CLI.run(['push-token', ...argv], url);
  const accountOf = async (token: string) =>
    (await push.app.sql.one<{ id: string; name: string }>(
      'SELECT a.id, a.name FROM ingest_push.push_tokens t JOIN ingest_push.accounts a ON a.id = t.account_id WHERE t.id = $1',
      [token.split('_')[1]],
    ))!;

  it('prints a token of the named account, created on first use, that the push routes accept; the same name is the same account', async () => {
    const account = `north-shop-${randomUUID().slice(0, 8)}`;
    const url = await workerDatabaseUrl();
    const [a, b] = await Promise.all([mint(url, '--name', 'sender', '--account', account), mint(url, '--account', account)]);
    expect(a).toMatch(/^push_[0-9a-f-]{36}_[A-Za-z0-9]+$/);
    expect(await accountOf(a)).toEqual({ id: (await accountOf(b)).id, name: account });
    expect((await accountOf(await mint(url, '--account', `${account}-2`))).id).not.toBe((await accountOf(a)).id);
    await request(push.app.http).get('/api/pushm/bulk/00000000-0000-4000-8000-000000000000').set('authorization', `Bearer ${a}`).expect(404);
  });

  it('refuses bad arguments with one sentence', () => {
    expect(() => INGEST_PUSH_CLI.parse(['push-token', '--account', ' '])).toThrow('--account must be 1 to 255 characters.');
    expect(() => INGEST_PUSH_CLI.parse(['push-token', '--bogus', 'x'])).toThrow(
      /^Unexpected argument "--bogus"; usage: node apps\/ingest-push\/src\/main\.js push-token \[--name <name>\] \[--account <account>\]\.$/,
    );
    expect(() => INGEST_PUSH_CLI.parse(['push-token', '--name'])).toThrow(/^--name needs a value; usage/);
  });
});
