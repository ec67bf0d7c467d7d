import { fork, type ChildProcess } from 'node:child_process';
import { TS_CHILD_PRELOAD } from '@app/testkit';

export interface IngestChild {
  port: number;
  /** The process id (to read its memory). */
  pid: number;
  /** The JSON lines the process has logged so far (its stdout). */
  lines: Array<Record<string, unknown>>;
  /** A new push token for `account` (created on first use). */
  token(account: string): Promise<string>;
  /** A full garbage collection in the process (started with `exposeGc`); resolves with what it still holds after it. */
  gc(): Promise<NodeJS.MemoryUsage>;
  /** SIGKILL, as an out-of-memory kill or a node failure does; resolves when it is gone. */
  kill(): Promise<void>;
}

/**
 * The ingest-push API in a child process of its own, on the worker's database, for tests that kill
 * it (kill -9), read what it logs or measure its memory. `env` adds settings (INGEST_*, BODY_*, LOG_LEVEL).
 */
export async function startIngestChild(env: Record<string, string> = {}, options: { exposeGc?: boolean } = {}): Promise<IngestChild> {
  const child: ChildProcess = fork(require.resolve('./ingest-app.child.ts'), [], {
    execArgv: ['-r', TS_CHILD_PRELOAD, ...(options.exposeGc ? ['--expose-gc'] : [])],
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
  /** Sends `message` and resolves with the first answer carrying `key` (and `account`, when asked for one's token). */
  const ask = <T>(message: unknown, key: string, account?: string) =>
    new Promise<T>((resolve) => {
      const onMessage = (m: unknown) => {
        if (typeof m !== 'object' || m === null || !(key in m) || (account !== undefined && (m as { account?: string }).account !== account)) return;
        child.off('message', onMessage);
        resolve((m as Record<string, T>)[key]);
      };
      child.on('message', onMessage);
      child.send(message as object);
    });
  return {
    port,
    pid: child.pid!,
    lines,
    token: (account) => ask<string>({ token: account }, 'token', account),
    gc: () => ask<NodeJS.MemoryUsage>('gc', 'gc'),
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
