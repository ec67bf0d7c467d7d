import { spawn } from 'node:child_process';
import { eventually } from './eventually';
import { workerDatabaseSettings } from './pooled-database';
import { TS_CHILD_PRELOAD } from './ts-child-preload';
import type { OtlpReceiver, ReceivedSpan } from './otlp-receiver';

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

/** The spans a trace of one user action holds once the work went through the queue to the outside world. */
export interface ExpectedTrace {
  /** The HTTP method of the request that started it (its server span). */
  method: string;
  /** The queue worker's span (`<queue> process`). */
  job: string;
  /** The span of the work the job does (`webhook deliver`, `push send`). */
  work: string;
}

/**
 * The spans of trace `traceId` once all of them have come: the request's server span, a SQL statement, the job's,
 * the work's and the outgoing POST, in one tree. Spans arrive in batches as they end, so a child may come before
 * its parent: it waits until every parent has come too. A failure lists the spans received.
 */
export function waitForTrace(otlp: OtlpReceiver, traceId: string, expected: ExpectedTrace): Promise<ReceivedSpan[]> {
  return eventually(
    () => {
      const spans = otlp.trace(traceId);
      const complete =
        spans.some((s) => s.kind === 2 && s.attributes['http.request.method'] === expected.method) &&
        spans.some(isSqlSpan) &&
        spans.some((s) => s.name === expected.job) &&
        spans.some((s) => s.name === expected.work) &&
        spans.some((s) => s.kind === 3 && s.attributes['http.request.method'] === 'POST') &&
        rootOfOneTree(spans).length === 1;
      return complete ? spans : undefined;
    },
    { what: `the spans of trace ${traceId}`, timeoutMs: 20_000 },
  ).catch((error: Error) => {
    throw new Error(`${error.message}; spans received:\n${describeSpans(otlp.spans)}`);
  });
}
