import { getRPCMetadata } from '@opentelemetry/core';
import {
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
} from '@opentelemetry/api';

/** The tracer of the services' own spans (jobs, deliveries, provider calls); a no-op one when tracing is off. */
const tracer = () => trace.getTracer('services');

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;
/** tracestate as W3C allows it (printable ASCII), at most 512 characters; anything else is dropped. */
const TRACESTATE = /^[\x20-\x7e]{1,512}$/;

/**
 * The active trace context as stored with an outbox row and carried in a job: the W3C `traceparent`,
 * followed by `;` and the `tracestate` when there is one (a traceparent never holds `;`). Null when no
 * span is active (tracing off, or work outside any request).
 */
export function currentTraceContext(): string | null {
  // The active span may have ended (work a request left running, e.g. the gateway sandbox's later status steps):
  // its context still names the trace. An unsampled context is kept too, so its jobs stay unsampled.
  const active = trace.getSpanContext(context.active());
  if (!active || !isSpanContextValid(active)) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  const parent = carrier.traceparent;
  if (!parent || !TRACEPARENT.test(parent)) return null;
  const state = carrier.tracestate;
  return state && TRACESTATE.test(state) ? `${parent};${state}` : parent;
}

/**
 * What an outbox INSERT writes into its trace context column: a marker the SQL layer (libs/database) binds to
 * the active trace context as one more parameter on every run (NULL with tracing off). Constant text, so it
 * fits prepared statements; unbound it is plain NULL.
 */
export const TRACE_CONTEXT_SQL = '/*trace_context*/NULL::text';

/** Per statement text: null when it holds no marker, else its text with the marker bound, per number of values. */
const bound = new Map<string, Array<string | undefined> | null>();
const BOUND_TEXTS = 10_000;

/**
 * A statement's text and values with TRACE_CONTEXT_SQL bound (libs/database calls it for every statement): the
 * marker becomes the next parameter, whose value is the active trace context. The same text and number of values
 * always give the same text (a named prepared statement keeps its text); other statements are left as they are.
 * Keyed by the text itself (a string keeps its hash), so a statement without the marker costs one map lookup.
 */
export function bindTraceContext(text: string, values: unknown[]): { text: string; values: unknown[] } {
  let texts = bound.get(text);
  if (texts === undefined) {
    texts = text.includes(TRACE_CONTEXT_SQL) ? [] : null;
    // Statements are few and fixed; texts built per call (if any) stop being remembered past the bound.
    if (bound.size < BOUND_TEXTS) bound.set(text, texts);
  }
  if (texts === null) return { text, values };
  const rewritten = (texts[values.length] ??= text.split(TRACE_CONTEXT_SQL).join(`$${values.length + 1}::text`));
  return { text: rewritten, values: [...values, currentTraceContext()] };
}

/** The context a stored value names (undefined when it names none, e.g. a row written with tracing off). */
export function storedContext(stored: string | null | undefined): Context | undefined {
  if (!stored) return undefined;
  const cut = stored.indexOf(';');
  const traceparent = cut < 0 ? stored : stored.slice(0, cut);
  if (!TRACEPARENT.test(traceparent)) return undefined;
  const carrier = cut < 0 ? { traceparent } : { traceparent, tracestate: stored.slice(cut + 1) };
  const extracted = propagation.extract(ROOT_CONTEXT, carrier);
  return trace.getSpanContext(extracted) ? extracted : undefined;
}

/** A link to the span a stored context names, with attributes (e.g. the attempt it led to). */
export function linkTo(stored: string | null | undefined, attributes?: Attributes): Link | undefined {
  const spanContext = storedContext(stored) && trace.getSpanContext(storedContext(stored)!);
  return spanContext ? { context: spanContext, attributes } : undefined;
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  links?: Array<Link | undefined>;
}

/**
 * Runs `work` in a new span. With `parent` (a stored context), the span continues that trace (it is a child
 * of the request that wrote the outbox row); otherwise it is a child of the active span, if any. A thrown error
 * marks the span as failed. With tracing off, `work` runs with a no-op span.
 */
export function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>, parent?: string | null): Promise<T> {
  const from = (parent !== undefined && storedContext(parent)) || context.active();
  const links = options.links?.filter((link): link is Link => link !== undefined);
  return tracer().startActiveSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, links }, from, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * Runs `work` outside any trace: timers, workers and connections started there make no spans of a request
 * (or of the app's start) their parent. Lanes start their relay and worker so.
 */
export function untraced<T>(work: () => T): T {
  return context.with(ROOT_CONTEXT, work);
}

/** The active span's ids for a log line (`trace_id`, `span_id`), or nothing when no span is active. */
export function traceIds(): { trace_id: string; span_id: string } | Record<string, never> {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/** Sets attributes on the active span (row counts, ids); nothing when no span records. */
export function setSpanAttributes(attributes: Attributes): void {
  const span = trace.getActiveSpan();
  if (span?.isRecording()) span.setAttributes(attributes);
}

/**
 * Sets attributes on the span of the HTTP request being served (the server span, wherever the code runs inside it:
 * a guard, a service), else on the active span; nothing when no span records (a function is called only then). For the request's owner, batch ids and the like.
 */
export function setRequestAttributes(attributes: Attributes | (() => Attributes)): void {
  const span = getRPCMetadata(context.active())?.span ?? trace.getActiveSpan();
  // Built only when a span records: nothing is allocated with tracing off.
  if (span?.isRecording()) span.setAttributes(typeof attributes === 'function' ? attributes() : attributes);
}

let shutdownTracing: (() => Promise<void>) | undefined;

/** Registers how the started SDK flushes and stops (tracing.ts); the lib itself never loads the SDK. */
export function onTracingShutdown(shutdown: () => Promise<void>): void {
  shutdownTracing = shutdown;
}

/** Sends the spans still buffered and stops the SDK, at the end of a graceful shutdown; nothing with tracing off. */
export async function flushTraces(): Promise<void> {
  const shutdown = shutdownTracing;
  shutdownTracing = undefined;
  await shutdown?.().catch(() => undefined);
}

export { SpanKind, type Span };
