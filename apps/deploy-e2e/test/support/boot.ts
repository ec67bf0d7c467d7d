import type { ChildProcess } from 'node:child_process';

/** 200 once the app at `port` answers /health, else why not (the child exited, or 40 s passed). */
export async function waitForHealth(port: number, child: ChildProcess): Promise<number | string> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null || child.signalCode !== null) return `exited with ${child.exitCode ?? child.signalCode}`;
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      if (res.status === 200) return 200;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return 'no 200 within 40 s';
}
