import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, freshDatabase } from '@app/testkit';
import { waitForHealth } from './support/boot';
import { extractExamples, linkProblems, readmeFiles, runExamples, type ExampleFailure } from '../src/readme-examples';
import { ROOT } from '../src/workspace';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureBuilt } = require(join(ROOT, 'tools/app-build.js')) as { ensureBuilt(app: string): Promise<void> };

const readmes = readmeFiles(ROOT).map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }));
const withExamples = readmes.map(({ file, text }) => ({ file, blocks: extractExamples(text) })).filter(({ blocks }) => blocks.length > 0);

/**
 * Doc tests: every README block marked `<!-- example -->` runs, in order, against the stack `npm start`
 * boots (on free ports, a database of its own), as a reader would paste it from the repository root.
 * curl fails on an HTTP error (a curlrc with --fail-with-body), so an example whose request the API
 * refuses fails here, naming its README and line.
 */
describe('README examples against a booted stack', () => {
  let stack: ChildProcess | undefined;
  let stackOutput = '';
  let curlHome: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    // Built once before the stack starts: the CLIs the examples call then find the build current and never rewrite dist/.
    for (const app of ['docstore', 'gateway', 'ingest-push', 'sales-upload']) await ensureBuilt(app);
    const ports = { docstore: await freePort(), gateway: await freePort(), 'ingest-push': await freePort() };
    const { PATH, HOME, TMPDIR, ENCRYPTION_KEYS } = process.env;
    const common = {
      PATH,
      HOME,
      ...(TMPDIR ? { TMPDIR } : {}),
      ENCRYPTION_KEYS,
      DATABASE_URL: await freshDatabase(`t_${process.env.TEST_RUN_ID}_readme`),
      REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    };
    // The three services only: the doc test needs no console (and CONSOLE_PORT would be taken).
    stack = spawn(process.execPath, ['tools/start.js', 'docstore', 'gateway', 'ingest-push'], {
      cwd: ROOT,
      env: {
        ...common,
        SKIP_BUILD: '1',
        REDIS_PREFIX: `test:${process.env.TEST_RUN_ID}:readme:`,
        DOCSTORE_PORT: String(ports.docstore),
        GATEWAY_PORT: String(ports.gateway),
        INGEST_PUSH_PORT: String(ports['ingest-push']),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    stack.stdout!.on('data', (chunk: Buffer) => (stackOutput = (stackOutput + chunk.toString()).slice(-20_000)));
    stack.stderr!.on('data', (chunk: Buffer) => (stackOutput = (stackOutput + chunk.toString()).slice(-20_000)));
    for (const port of Object.values(ports)) {
      const status = await waitForHealth(port, stack);
      if (status !== 200) throw new Error(`The stack gave no healthy app on port ${port} (${status}):\n${stackOutput.slice(-4000)}`);
    }
    curlHome = mkdtempSync(join(tmpdir(), 'readme-curl-'));
    writeFileSync(join(curlHome, '.curlrc'), '--fail-with-body\n--show-error\n--silent\n');
    env = {
      ...common,
      CURL_HOME: curlHome,
      DOCSTORE_URL: `http://127.0.0.1:${ports.docstore}`,
      GATEWAY_URL: `http://127.0.0.1:${ports.gateway}`,
      INGEST_PUSH_URL: `http://127.0.0.1:${ports['ingest-push']}`,
    };
  }, 300_000);

  afterAll(async () => {
    if (stack && stack.exitCode === null && stack.signalCode === null) {
      const exited = new Promise((resolve) => stack!.once('exit', resolve));
      stack.kill('SIGTERM');
      await exited;
    }
    if (curlHome) rmSync(curlHome, { recursive: true, force: true });
  }, 30_000);

  it('finds the examples of the root README and of every service', () => {
    expect(withExamples.map((r) => r.file)).toEqual(
      expect.arrayContaining(['README.md', 'apps/docstore/README.md', 'apps/gateway/README.md', 'apps/ingest-push/README.md']),
    );
  });

  it.each(withExamples)(
    '$file: every example runs',
    async ({ file, blocks }) => {
      const failure = await runExamples(blocks, { cwd: ROOT, env, timeoutMs: 120_000 });
      // Thrown rather than compared, so the block's output shows as it was printed.
      if (failure) throw new Error(describeFailure(file, failure, stackOutput));
    },
    150_000,
  );
});

describe('README links', () => {
  it('stay inside the repository and reach a file that exists', () => {
    expect(readmes.flatMap(({ file, text }) => linkProblems(ROOT, file, text))).toEqual([]);
  });
});

/** The example's output and what the stack logged as a warning or an error (a 503's cause is only there). */
function describeFailure(file: string, failure: ExampleFailure, stackOutput: string): string {
  const logged = stackOutput
    .split('\n')
    .filter((line) => /warn|error|fatal/i.test(line))
    .slice(-20)
    .join('\n');
  return `${file}:${failure.line}: the example failed (${failure.reason}); it printed:\n${failure.output.slice(-4000)}\nthe stack logged:\n${logged}`;
}
