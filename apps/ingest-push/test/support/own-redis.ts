import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import Redis from 'ioredis';

/** A redis-server of the test's own (no persistence: a restart comes back empty), so stopping it disturbs no other test. */
export class OwnRedis {
  private server?: ChildProcess;

  private constructor(readonly port: number) {}

  static async start(): Promise<OwnRedis> {
    const redis = new OwnRedis(await freePort());
    await redis.restart();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts it (again, empty) and resolves when it answers. */
  async restart(): Promise<void> {
    this.server = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const probe = new Redis(this.port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    for (;;) {
      try {
        await probe.connect();
        await probe.ping();
        probe.disconnect();
        return;
      } catch {
        probe.disconnect();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  /** Kills it at once: everything it held is gone. */
  async kill(): Promise<void> {
    const server = this.server;
    if (!server || server.exitCode !== null) return;
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGKILL');
    await exited;
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
