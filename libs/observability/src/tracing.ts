/**
 * Starts OpenTelemetry tracing for `service` (OTEL_SERVICE_NAME wins) when the process serves (`command`, the first
 * argument, is none or `migrate`: a credential command never traces) and an OTLP endpoint is set; otherwise starts
 * nothing, so the app runs with the API's no-op tracer. TracingConfig is validated here, once, before the app's own
 * config exists (the SDK must patch http, express, Nest, pg and ioredis before they are first loaded): an invalid
 * setting stops the process with one sentence and exit code 1, as the app's config does. Every other OTEL_* variable
 * (OTEL_TRACES_SAMPLER, OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES, ...) is read by the SDK itself.
 * Called by the app's `tracing.ts`, imported first by its `main.ts`.
 */
export function startTracing(service: string, command: string | undefined): boolean {
  if (command !== undefined && command !== 'migrate') return false;
  // Loaded only to serve: the SDK and the settings' validation are most of a second of CPU a credential command never pays.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the one lazy load, within this library
  return (require('./tracing-sdk') as typeof import('./tracing-sdk')).startTracingSdk(service);
}
