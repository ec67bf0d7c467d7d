// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import type { SettingDefaults } from '@app/config';
import { IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min } from 'class-validator';

export const GATEWAY_PROVIDERS = ['sandbox', 'cloud'] as const;
export type GatewayProviderName = (typeof GATEWAY_PROVIDERS)[number];

/** The gateway's own settings; it runs with these beside the core and webhook settings. */
export class GatewayConfig {
  /** `sandbox` (default: behaves like the network, talks to nobody) or `cloud` (the WhatsApp Business Cloud API). */
  @IsIn(GATEWAY_PROVIDERS)
  GATEWAY_PROVIDER: GatewayProviderName = 'sandbox';

  /** The `messaging_product` constant: the lowercase name of the chat network. */
  @IsString() @Matches(/^[a-z][a-z0-9_]{0,31}$/)
  NETWORK: string = 'whatsapp';

  /** Base address of the Graph API (tests and benchmarks point it at a loopback fake). */
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  CLOUD_API_BASE_URL: string = 'https://graph.facebook.com';

  /** Graph API version the cloud adapter calls, whatever `version` header the client sent. */
  @IsString() @Matches(/^v\d{1,3}\.\d{1,2}$/)
  CLOUD_API_VERSION: string = 'v23.0';

  /** App secret that signs the network's notifications (X-Hub-Signature-256). Without it, inbound notifications are refused. */
  @IsOptional() @IsString()
  CLOUD_API_APP_SECRET?: string;

  /** Token the network echoes when verifying the notification endpoint. Without it, verification is refused. */
  @IsOptional() @IsString()
  CLOUD_API_VERIFY_TOKEN?: string;

  /** How long one call to the network may take, in milliseconds. */
  @IsInt() @Min(100) @Max(120_000)
  CLOUD_API_TIMEOUT_MS: number = 15_000;

  /** Keep-alive connections to the network per process. */
  @IsInt() @Min(1) @Max(1024)
  CLOUD_API_CONNECTIONS: number = 64;

  /** Sandbox: milliseconds between sent, delivered and read. */
  @IsInt() @Min(0) @Max(3_600_000)
  SANDBOX_STATUS_DELAY_MS: number = 1000;

  /** Sandbox: milliseconds before a new template is reviewed. */
  @IsInt() @Min(0) @Max(3_600_000)
  SANDBOX_REVIEW_DELAY_MS: number = 5000;

  /** Sandbox: where uploaded media are stored (a volume every replica mounts). */
  @IsString()
  MEDIA_DIR: string = '.data/media';

  /** Messages per second per business phone (the network's throughput tier), counted across replicas. */
  @IsInt() @Min(1) @Max(100_000)
  MESSAGES_PER_SECOND: number = 80;

  /** How long an Idempotency-Key is remembered, in seconds. */
  @IsInt() @Min(60) @Max(7 * 24 * 3600)
  IDEMPOTENCY_TTL_SECONDS: number = 24 * 3600;

  /** How long a message's status events (sent, delivered, read, failed) are kept, in days. */
  @IsInt() @Min(1) @Max(3650)
  MESSAGE_STATUS_RETENTION_DAYS: number = 30;

  /** How long the keys of inbound notifications are kept to drop a second delivery of one, in days (the network retries for up to 7). */
  @IsInt() @Min(1) @Max(365)
  INBOUND_EVENT_RETENTION_DAYS: number = 14;

  /** How long a verified API key stays cached in this process, in seconds. */
  @IsInt() @Min(0) @Max(300)
  APIKEY_CACHE_TTL_SECONDS: number = 30;

  /** Notification types a webhook may subscribe to, comma-separated. */
  @IsString() @Matches(/^[a-z_]+(,[a-z_]+)*$/)
  WEBHOOK_TYPES: string = 'messages';

  get webhookTypes(): string[] {
    return this.WEBHOOK_TYPES.split(',');
  }
}

/** The gateway's defaults for shared settings. */
export const GATEWAY_DEFAULTS: SettingDefaults = { PORT: 3002, REDIS_PREFIX: 'gateway:' };
