import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { workerDatabaseUrl } from '@app/testkit';
import { request, useDocstore, type Docstore } from './support/docstore-test';

const run = promisify(execFile);
const ROOT = join(__dirname, '../../..');

/**
 * `npm run -s docstore:token` is `node tools/app-cli.js docstore token`: a provisioning script
 * may call it many times at once, even when the app must be built first.
 */
describe('docstore:token from parallel shells', () => {
  let ds: Docstore;
  useDocstore({ app: (d) => (ds = d) });

  const mint = async (client: string) => {
    const { stdout, stderr } = await run(
      process.execPath,
      ['tools/app-cli.js', 'docstore', 'token', '--client', client, '--scopes', '*', '--name', 'parallel'],
      {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: await workerDatabaseUrl() },
      },
    );
    return { token: stdout.trim(), stdout, stderr };
  };

  it('gives eight working tokens to eight calls at once, though the first must build the app, and prints nothing else', async () => {
    // A stale build: one call rebuilds (under the lock) while the other seven wait for it.
    rmSync(join(ROOT, 'dist/.docstore.build-hash'), { force: true });
    const clients = Array.from({ length: 8 }, () => randomUUID());
    const results = await Promise.all(clients.map(mint));
    expect(results.map((r) => ({ stdout: r.stdout, stderr: r.stderr }))).toEqual(results.map((r) => ({ stdout: `${r.token}\n`, stderr: '' })));
    expect(new Set(results.map((r) => r.token)).size).toBe(8);
    for (const [i, { token }] of results.entries()) {
      const [id] = token.split('|');
      const res = await request(ds.http).get(`/api/v1/client/${clients[i]}/tokens`).set('Authorization', `Bearer ${token}`).expect(200);
      expect(res.body.data).toEqual([expect.objectContaining({ id, name: 'parallel' })]);
      // A token acts for its own client only.
      await request(ds.http)
        .get(`/api/v1/client/${clients[(i + 1) % 8]}/tokens`)
        .set('Authorization', `Bearer ${token}`)
        .expect(403);
    }
  }, 600_000);

  it('refuses bad arguments with one sentence and exit code 1, before any database', async () => {
    const failure = await run(process.execPath, ['tools/app-cli.js', 'docstore', 'token', '--client', 'nope'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
    }).then(
      () => null,
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );
    expect(failure).toEqual({ code: 1, stdout: '', stderr: '--client must be the UUID of the client the token acts for.\n' });
  }, 120_000);
});
