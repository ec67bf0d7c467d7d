import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshDatabase } from '@app/testkit';
import { ROOT } from '../src/workspace';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureBuilt } = require(join(ROOT, 'tools/app-build.js')) as { ensureBuilt(app: string): Promise<void> };

/** The credential commands, as `npm run -s <script> -- <options>` runs them (tools/app-cli.js) and as the image does (main.js). */
const COMMANDS: Array<{ script: string; app: string; argv: string[]; prints: RegExp }> = [
  { script: 'docstore:token', app: 'docstore', argv: ['token', '--client', randomUUID()], prints: /^[0-9a-f-]{36}\|\S+\n$/ },
  { script: 'gateway:apikey', app: 'gateway', argv: ['apikey', '--phone', '15550102030', '--phone-id', '1098'], prints: /^gw_\S+\n$/ },
  { script: 'ingest:apikey', app: 'ingest-push', argv: ['apikey'], prints: /^sales_\S+\n$/ },
  { script: 'push:token', app: 'ingest-push', argv: ['push-token'], prints: /^push_\S+\n$/ },
];

/** Over this CPU time, a call of a current build counts as slow. */
const LIMIT_MS = 1000;

interface Call {
  stdout: string;
  stderr: string;
  code: number | null;
  /** User + system CPU time of the command's process. */
  cpuMs: number;
}

/**
 * A credential command on a current build and a migrated schema loads no TypeORM, Nest application or webhook engine:
 * it checks the migrations table and runs its SQL on a plain pg pool. Measured is the child's CPU time (user + system,
 * reported by a preloaded probe on fd 3), not wall time: on a shared CI machine the same call's wall time grows several
 * times over with the load beside it, while its CPU time barely moves. Median of three calls after a warm-up call,
 * which also migrates the fresh database once.
 */
describe('credential commands on a current build', () => {
  let probeDir: string;
  let probe: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    for (const app of new Set(COMMANDS.map((c) => c.app))) await ensureBuilt(app);
    probeDir = mkdtempSync(join(tmpdir(), 'cli-speed-'));
    probe = join(probeDir, 'cpu-probe.js');
    writeFileSync(
      probe,
      `process.on('exit', () => { const { user, system } = process.cpuUsage(); require('fs').writeSync(3, String((user + system) / 1000)); });\n`,
    );
    const { PATH, HOME, ENCRYPTION_KEYS } = process.env;
    env = { PATH, HOME, ENCRYPTION_KEYS, DATABASE_URL: await freshDatabase(`t_${process.env.TEST_RUN_ID}_cli_speed`) };
  }, 600_000);

  afterAll(() => rmSync(probeDir, { recursive: true, force: true }));

  const call = (args: string[]) =>
    new Promise<Call>((resolve, reject) => {
      const child = spawn(process.execPath, ['--require', probe, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
      const out: Record<'stdout' | 'stderr' | 'cpu', string> = { stdout: '', stderr: '', cpu: '' };
      child.stdout!.on('data', (chunk) => (out.stdout += chunk));
      child.stderr!.on('data', (chunk) => (out.stderr += chunk));
      child.stdio[3]!.on('data', (chunk) => (out.cpu += chunk));
      child.on('error', reject);
      child.on('close', (code) => resolve({ stdout: out.stdout, stderr: out.stderr, code, cpuMs: Number(out.cpu) }));
    });

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

  const measure = async (args: string[], prints: RegExp) => {
    const calls: Call[] = [];
    // The first is the warm-up, untimed: on the fresh database it also migrates the app's schema.
    for (let i = 0; i < 4; i++) calls.push(await call(args));
    for (const c of calls) expect({ code: c.code, stderr: c.stderr, stdout: c.stdout }).toEqual({ code: 0, stderr: '', stdout: expect.stringMatching(prints) });
    expect(Math.round(median(calls.slice(1).map((c) => c.cpuMs)))).toBeLessThan(LIMIT_MS);
  };

  it.each(COMMANDS)(
    'npm run -s $script: under a second of CPU, nothing on stderr',
    async ({ app, argv, prints }) => {
      await measure(['tools/app-cli.js', app, ...argv], prints);
    },
    300_000,
  );

  it.each(COMMANDS)(
    "the image's main.js $argv.0 ($app): under a second of CPU, nothing on stderr",
    async ({ app, argv, prints }) => {
      await measure([join('dist', app, 'apps', app, 'src', 'main.js'), ...argv], prints);
    },
    300_000,
  );
});
