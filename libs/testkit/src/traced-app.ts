import { spawn } from 'node:child_process';
import { eventually } from './eventually';
import { workerDatabaseSettings } from './pooled-database';
import { TS_CHILD_PRELOAD } from './ts-child-preload';
import type { ReceivedSpan } from './otlp-receiver';

/** An app's `main.ts` running in a child process of the test. */
export interface ChildApp {
  url: string;
  /** Its stdout, line by line (JSON log lines). */
  lines: string[];
  /** SIGTERM, and resolves once it has exited (its graceful shutdown sends the spans still buffered). */
  stop(): Promise<void>;
}

/**
 * Starts `main` (an app's main.ts) as `node main.js` does, TypeScript compiled as it loads, with the worker's database
 * and `env`: tracing tests run the app so, since the OpenTelemetry SDK patches modules as Node loads them, which
 * Jest's own module loader bypasses. Resolves once the app logged its ready line.
 */
export async function startChildApp(main: string, name: string, env: Record<string, string>): Promise<ChildApp> {
  const child = spawn(process.execPath, ['-r', TS_CHILD_PRELOAD, main], {
    env: {
      ...process.env,
      ...(await workerDatabaseSettings()),
      REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
      LOG_LEVEL: 'info',
      PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines: string[] = [];
  const errors: string[] = [];
  let rest = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const parts = (rest + chunk.toString('utf8')).split('\n');
    rest = parts.pop()!;
    lines.push(...parts);
  });
  child.stderr!.on('data', (chunk: Buffer) => errors.push(chunk.toString('utf8')));
  const ready = await eventually(
    () => {
      if (child.exitCode !== null) throw new Error(`${name} exited: ${errors.join('')}`);
      const line = lines.find((l) => l.includes(`"msg":"${name} ready"`));
      return line ? (JSON.parse(line) as { url: string }) : undefined;
    },
    { what: `${name} to be ready`, timeoutMs: 60_000 },
  );
  return {
    url: ready.url,
    lines,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Whether a span is a PostgreSQL statement (the pg instrumentation's). */
export function isSqlSpan(span: ReceivedSpan): boolean {
  return span.attributes['db.system'] === 'postgresql' || span.attributes['db.system.name'] === 'postgresql';
}

/** A trace's spans form one tree: exactly one root (the returned span), every other span's parent in the trace. */
export function rootOfOneTree(spans: ReceivedSpan[]): ReceivedSpan[] {
  const ids = new Set(spans.map((s) => s.spanId));
  return spans.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId));
}

/** A readable list of spans, for a failure message. */
export function describeSpans(spans: ReceivedSpan[]): string {
  return spans.map((s) => `${s.traceId.slice(0, 8)} ${s.name} (kind ${s.kind}) ${s.parentSpanId.slice(0, 4)}>${s.spanId.slice(0, 4)}`).join('\n');
}
