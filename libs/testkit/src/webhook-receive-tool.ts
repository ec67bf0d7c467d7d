import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { eventually } from './eventually';

const ROOT = join(__dirname, '../../..');

export interface ReceiveTool {
  /** Where it listens, as it printed it. */
  url: string;
  /** What it printed so far: deliveries on stdout, notices on stderr. */
  readonly stdout: string;
  readonly stderr: string;
  /** The printed deliveries (blocks starting `#n `), once at least `n` are there. */
  deliveries(n: number): Promise<string[]>;
  stop(): Promise<void>;
}

/** Runs `npm run webhook:receive -- <args>` (tools/webhook-receive.js) as a user would, on a free port. */
export async function startReceiveTool(args: string[]): Promise<ReceiveTool> {
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, 'tools/webhook-receive.js'), '--port', '0', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await eventually(() => {
    if (child.exitCode !== null) throw new Error(`webhook:receive exited with ${child.exitCode}: ${stderr}`);
    return /listening on (\S+)/.exec(stderr)?.[1];
  });
  const blocks = () => stdout.split(/^(?=#\d+ )/m).filter((b) => b.startsWith('#'));
  return {
    url,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    deliveries: (n) => eventually(() => (blocks().length >= n ? blocks() : undefined)),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
