import { fork, type ChildProcess } from 'node:child_process';
import { TS_CHILD_PRELOAD } from '@app/testkit';

export interface IngestChild {
  port: number;
  /** The JSON lines the process has logged so far (its stdout). */
  lines: Array<Record<string, unknown>>;
  /** SIGKILL, as an out-of-memory kill or a node failure does; resolves when it is gone. */
  kill(): Promise<void>;
}

/**
 * The ingest-push API in a child process of its own, on the worker's database, for tests that kill
 * it (kill -9) or read what it logs. `env` adds settings (INGEST_*, LOG_LEVEL).
 */
export async function startIngestChild(env: Record<string, string> = {}): Promise<IngestChild> {
  const child: ChildProcess = fork(require.resolve('./ingest-app.child.ts'), [], {
    execArgv: ['-r', TS_CHILD_PRELOAD],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const lines: Array<Record<string, unknown>> = [];
  let rest = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const text = rest + chunk.toString('utf8');
    const parts = text.split('\n');
    rest = parts.pop()!;
    for (const line of parts) if (line.startsWith('{')) lines.push(JSON.parse(line) as Record<string, unknown>);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`the ingest-push child exited with ${code}`)));
  });
  return {
    port,
    lines,
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
