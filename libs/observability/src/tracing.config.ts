// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional, IsString, IsUrl, MaxLength } from 'class-validator';

const OTLP_URL: Parameters<typeof IsUrl>[0] = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };

/**
 * The standard OpenTelemetry variables read before Nest starts (tracing.ts: the SDK must patch modules before they
 * load), validated once as the process starts to serve. Every other OTEL_* variable is read by the SDK itself.
 */
export class TracingConfig {
  /** Base URL of an OTLP/HTTP receiver; spans go to `<base>/v1/traces`. Set (or the next), tracing starts. */
  @IsOptional()
  @IsUrl(OTLP_URL)
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  /** The full traces URL instead of the base. */
  @IsOptional()
  @IsUrl(OTLP_URL)
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;

  /** `true` (any case) turns tracing off whatever the endpoint; any other value leaves it on, as the SDK reads it. */
  // Read from the given text (`obj`): implicit conversion alone would make "false" true.
  @Transform(({ obj, key }: { obj: Record<string, unknown>; key: string }) => String(obj[key]).toLowerCase() === 'true')
  @IsBoolean()
  OTEL_SDK_DISABLED: boolean = false;

  /** `none` turns tracing off. */
  @IsOptional()
  @IsString()
  OTEL_TRACES_EXPORTER?: string;

  /** The service's name in traces; defaults to the app's. */
  @IsOptional()
  @IsString()
  @MaxLength(255)
  OTEL_SERVICE_NAME?: string;
}

/**
 * Whether the OTLP exporter is asked for: the standard OTEL_EXPORTER_OTLP_ENDPOINT (or its traces-only form) is set,
 * OTEL_SDK_DISABLED is not `true` and OTEL_TRACES_EXPORTER is not `none`.
 */
export function tracingWanted(config: TracingConfig): boolean {
  const endpoint = config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? config.OTEL_EXPORTER_OTLP_ENDPOINT;
  return endpoint !== undefined && !config.OTEL_SDK_DISABLED && config.OTEL_TRACES_EXPORTER !== 'none';
}
