import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { generateEncryptionKeys } from '@app/secrets';
import { TS_CHILD_PRELOAD, workerDatabaseSettings } from '@app/testkit';

const MAIN = join(__dirname, '../src/main.ts');

interface Started {
  child: ChildProcess;
  stdout: string[];
  stderr: string[];
  exited: Promise<number | null>;
}

/** `node main.js` as a deployment runs it (TypeScript compiled as it loads), with the worker's database. */
async function startMain(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, ['-r', TS_CHILD_PRELOAD, MAIN], {
    env: {
      ...process.env,
      ...(await workerDatabaseSettings()),
      REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
      REDIS_PREFIX: `test:startup:${process.pid}:`,
      ENCRYPTION_KEYS: process.env.ENCRYPTION_KEYS || generateEncryptionKeys('test'),
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const started: Started = { child, stdout: [], stderr: [], exited: new Promise((resolve) => child.once('exit', resolve)) };
  const collect = (into: string[]) => {
    let rest = '';
    return (chunk: Buffer) => {
      const parts = (rest + chunk.toString('utf8')).split('\n');
      rest = parts.pop()!;
      into.push(...parts);
    };
  };
  child.stdout!.on('data', collect(started.stdout));
  child.stderr!.on('data', collect(started.stderr));
  return started;
}

async function readyLine(started: Started): Promise<Record<string, unknown>> {
  for (;;) {
    const line = started.stdout.map((l) => (l.startsWith('{') ? (JSON.parse(l) as Record<string, unknown>) : null)).find((l) => l?.msg === 'docstore ready');
    if (line) return line;
    const exit = await Promise.race([started.exited, new Promise((resolve) => setTimeout(() => resolve('waiting'), 50))]);
    if (exit !== 'waiting') throw new Error(`the docstore exited (${String(exit)}): ${started.stderr.join('\n')}`);
  }
}

/** Issue 24 item 5: one line says where the app and its /docs are; a busy port is one sentence naming the setting. */
describe('docstore start-up', () => {
  let first: Started | undefined;
  afterAll(async () => {
    first?.child.kill('SIGTERM');
    await first?.exited;
  });

  it('logs one ready line with its URL and /docs, and a second start on its port stops with one sentence naming DOCSTORE_PORT', async () => {
    first = await startMain({ PORT: '0' });
    const ready = await readyLine(first);
    expect(ready).toMatchObject({ level: 30, service: 'docstore', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
    expect(ready.docs).toBe(`${String(ready.url)}/docs`);
    expect((await fetch(String(ready.docs))).status).toBe(200);
    expect(first.stdout.filter((l) => l.includes('"msg":"docstore ready"'))).toHaveLength(1);

    const port = new URL(String(ready.url)).port;
    const second = await startMain({ PORT: port });
    expect(await second.exited).toBe(1);
    expect(second.stderr).toEqual([`Port ${port} is in use (DOCSTORE_PORT / PORT): stop what uses it or choose another.`]);
  });
});
