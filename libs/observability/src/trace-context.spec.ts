import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { bindTraceContext, currentTraceContext, inSpan, storedContext, TRACE_CONTEXT_SQL, traceIds } from './trace-context';
import { InvalidConfigError, loadConfig } from '@app/config/load';
import { TracingConfig, tracingWanted } from './tracing.config';

describe('trace context without an SDK (tracing off)', () => {
  it('stores nothing, binds NULL, logs no ids, and runs work in a no-op span', async () => {
    expect(currentTraceContext()).toBeNull();
    expect(traceIds()).toEqual({});
    const sql = `INSERT INTO t (a, trace_context) VALUES ($1, ${TRACE_CONTEXT_SQL})`;
    expect(bindTraceContext(sql, ['x'])).toEqual({ text: 'INSERT INTO t (a, trace_context) VALUES ($1, $2::text)', values: ['x', null] });
    expect(bindTraceContext('SELECT $1', [1])).toEqual({ text: 'SELECT $1', values: [1] });
    await expect(inSpan('work', {}, async () => 7, '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01')).resolves.toBe(7);
  });

  it('starts the SDK only with an OTLP endpoint, and not when disabled', () => {
    const wanted = (env: NodeJS.ProcessEnv) => tracingWanted(loadConfig(TracingConfig, env));
    expect(wanted({})).toBe(false);
    expect(wanted({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBe(false);
    expect(wanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(true);
    expect(wanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318' })).toBe(true);
    expect(wanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' })).toBe(true);
    expect(wanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'TRUE' })).toBe(false);
    expect(wanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'false' })).toBe(true);
    expect(wanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  });

  it('refuses an endpoint that is not an http(s) URL, naming the setting', () => {
    expect(() => loadConfig(TracingConfig, { OTEL_EXPORTER_OTLP_ENDPOINT: '127.0.0.1:4318' })).toThrow(InvalidConfigError);
    expect(() => loadConfig(TracingConfig, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'grpc://collector:4317' })).toThrow(/OTEL_EXPORTER_OTLP_TRACES_ENDPOINT/);
  });
});

describe('trace context with a tracer', () => {
  const exporter = new InMemorySpanExporter();
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  });
  afterAll(() => {
    trace.disable();
    propagation.disable();
    context.disable();
  });

  it('stores the active context, and a worker span continues it', async () => {
    let stored: string | null = null;
    let ids = {};
    await inSpan('request', {}, async () => {
      stored = currentTraceContext();
      ids = traceIds();
      expect(bindTraceContext(`VALUES (${TRACE_CONTEXT_SQL})`, []).values).toEqual([stored]);
    });
    expect(stored).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(ids).toEqual({ trace_id: stored!.split('-')[1], span_id: stored!.split('-')[2] });
    expect(trace.getSpanContext(storedContext(stored)!)?.traceId).toBe(stored!.split('-')[1]);
    expect(storedContext('not a traceparent')).toBeUndefined();
    expect(storedContext(`${stored};vendor=a1`)).toBeDefined();

    // Work the request left running after its span ended still names its trace.
    let later: string | null = null;
    await inSpan('short request', {}, async () => void setTimeout(() => (later = currentTraceContext()), 5));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(later).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    exporter.reset();

    await inSpan('job', {}, async () => undefined, stored);
    const [job] = exporter.getFinishedSpans();
    expect(job.spanContext().traceId).toBe(stored!.split('-')[1]);
    expect(job.parentSpanContext?.spanId).toBe(stored!.split('-')[2]);
  });

  it('marks a span whose work throws as failed', async () => {
    exporter.reset();
    await expect(inSpan('fails', {}, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(exporter.getFinishedSpans()[0].status).toMatchObject({ code: 2, message: 'boom' });
  });
});
