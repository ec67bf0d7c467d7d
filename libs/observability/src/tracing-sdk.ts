import { InvalidConfigError, loadConfig } from '@app/config/load';
import { onTracingShutdown } from './trace-context';
import { TracingConfig, tracingWanted } from './tracing.config';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { NestInstrumentation } from '@opentelemetry/instrumentation-nestjs-core';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { envDetector, hostDetector, processDetector } from '@opentelemetry/resources';

/** Paths whose requests make no spans: probes and scrapes would otherwise be most of the traces. */
const UNTRACED_PATHS = new Set(['/health', '/health/live', '/health/ready', '/metrics']);

let sdk: NodeSDK | undefined;

/** startTracing's work once the process serves: see tracing.ts. */
export function startTracingSdk(service: string): boolean {
  if (sdk) return false;
  const config = validTracingConfig();
  if (!tracingWanted(config)) return false;
  sdk = new NodeSDK({
    traceExporter: new OTLPTraceExporter(),
    serviceName: config.OTEL_SERVICE_NAME ?? service,
    // Only what the services use; no resource detector that probes a cloud's metadata endpoint at start.
    resourceDetectors: [envDetector, hostDetector, processDetector],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has((request.url ?? '').split('?')[0]),
        // Outgoing calls are traced by the undici instrumentation (webhooks, FCM, APNs, the chat network).
        ignoreOutgoingRequestHook: () => true,
      }),
      new ExpressInstrumentation(),
      new NestInstrumentation(),
      new PgInstrumentation({ enhancedDatabaseReporting: false, requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
      new UndiciInstrumentation(),
    ],
  });
  sdk.start();
  const started = sdk;
  // The graceful shutdown (libs/server) sends the spans still buffered once the app has closed.
  onTracingShutdown(() => started.shutdown());
  return true;
}

function validTracingConfig(): TracingConfig {
  try {
    return loadConfig(TracingConfig);
  } catch (error) {
    if (!(error instanceof InvalidConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}
