import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Client } from 'pg';

/** Creates (or recreates) a database; global teardown drops every t_<run>_* one. */
export async function freshDatabase(name: string): Promise<string> {
  const admin = process.env.TEST_DATABASE_URL!;
  const client = new Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}"`);
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

/** 200 once the app answers /health with it, or why it never did (it exited, or 40 s passed). */
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

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
