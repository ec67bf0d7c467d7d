import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../../src/workspace';

export type BuiltApp = 'docstore' | 'gateway' | 'ingest-push';

/** A process of a built app (`node dist/<app>/apps/<app>/src/main.js …`), its output kept for the failure message. */
export interface AppProcess {
  name: string;
  child: ChildProcess;
  output: string;
  /** Resolves with the exit code once the process has exited. */
  done: Promise<number | null>;
}

export const builtEntry = (app: BuiltApp) => join(ROOT, 'dist', app, 'apps', app, 'src', 'main.js');

export const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/** Starts `node <args>` from the workspace root with only `env` (and PATH), production mode. */
export function startProcess(name: string, args: string[], env: Record<string, string>): AppProcess {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH, NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const proc: AppProcess = { name, child, output: '', done: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
  child.stdout!.on('data', (chunk: Buffer) => (proc.output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (proc.output += chunk.toString()));
  return proc;
}

/** Ends the processes still running (SIGTERM) and waits for them. */
export async function stopProcesses(procs: AppProcess[]): Promise<void> {
  for (const { child } of procs) if (!hasExited(child)) child.kill('SIGTERM');
  await Promise.all(procs.map((p) => p.done));
}

/** The status of GET `url` (with `headers`), or 0 when nothing answers within `timeoutMs`. */
export async function statusOf(url: string, headers: Record<string, string> = {}, timeoutMs = 2000): Promise<number> {
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}
