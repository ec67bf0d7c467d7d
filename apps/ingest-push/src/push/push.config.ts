// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import {
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  MinLength,
  Max,
  Min,
  Validate,
  ValidateIf,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { DeployEnvironmentSettings, NotSandboxInProduction } from '@app/config';
import { IsRetrySchedule, IsWorkerMode, parseRetrySchedule, type WorkerMode } from '@app/queue';
import { isTimeZone } from './push-due-time';

@ValidatorConstraint({ name: 'timeZone' })
class TimeZoneConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && isTimeZone(value);
  }
  defaultMessage(): string {
    return 'must be an IANA time zone name such as UTC or America/Sao_Paulo';
  }
}

const URL_OPTIONS = { protocols: ['http', 'https'], require_tld: false, require_protocol: true };

/** Settings of bulk push: limits, scheduling, providers, fan-out. */
export class PushConfig extends DeployEnvironmentSettings {
  /** The time zone of `dt_envio` + `hr_envio` (an IANA name). */
  @IsString()
  @Validate(TimeZoneConstraint)
  PUSH_TIMEZONE: string = 'UTC';

  /** Most sends of one batch in any 60 s when the batch gives no throttle_per_minute; unset: unlimited. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  PUSH_DEFAULT_THROTTLE_PER_MINUTE?: number;

  /**
   * Key of the open tokens (HMAC-SHA256 of each push id) the app sends to POST /api/pushm/opened; at least 32 characters,
   * the same on every replica. Required with DEPLOY_ENV=production; elsewhere a fixed development key stands in.
   */
  @ValidateIf((c: PushConfig) => c.PUSH_OPEN_TOKEN_SECRET !== undefined || c.DEPLOY_ENV === 'production')
  @IsString()
  @MinLength(32)
  @Matches(/^(?!CHANGE_ME)/, { message: "must be a key of your own, not the Secret template's CHANGE_ME" })
  PUSH_OPEN_TOKEN_SECRET?: string;

  /** Most items one request may carry; more is answered 413. */
  @IsInt()
  @Min(1)
  @Max(100_000)
  PUSH_MAX_ITEMS: number = 10_000;

  /** How long a batch and its items are kept after the batch ends (no item scheduled or sending), in days. */
  @IsInt()
  @Min(1)
  @Max(3650)
  PUSH_RETENTION_DAYS: number = 30;

  @IsIn(['fcm', 'sandbox'])
  @NotSandboxInProduction('fcm')
  PUSH_PROVIDER_ANDROID: 'fcm' | 'sandbox' = 'sandbox';

  @IsIn(['apns', 'sandbox'])
  @NotSandboxInProduction('apns')
  PUSH_PROVIDER_IOS: 'apns' | 'sandbox' = 'sandbox';

  @IsIn(['webpush', 'sandbox'])
  @NotSandboxInProduction('webpush')
  PUSH_PROVIDER_WEB: 'webpush' | 'sandbox' = 'sandbox';

  /** The VAPID key pair (base64url, as `npx web-push generate-vapid-keys` prints it), needed with PUSH_PROVIDER_WEB=webpush. */
  @ValidateIf((c: PushConfig) => c.PUSH_PROVIDER_WEB === 'webpush')
  @Matches(/^[A-Za-z0-9_-]{87}$/, { message: 'must be the 65-byte P-256 public key in base64url' })
  VAPID_PUBLIC_KEY?: string;

  @ValidateIf((c: PushConfig) => c.PUSH_PROVIDER_WEB === 'webpush')
  @Matches(/^[A-Za-z0-9_-]{43}$/, { message: 'must be the 32-byte P-256 private key in base64url' })
  VAPID_PRIVATE_KEY?: string;

  /** Who runs the sender, for the push services (RFC 8292): `mailto:` or `https:`. */
  @ValidateIf((c: PushConfig) => c.PUSH_PROVIDER_WEB === 'webpush')
  @Matches(/^(mailto:\S+@\S+|https:\/\/\S+)$/, { message: 'must be a mailto: or https: URL' })
  VAPID_SUBJECT?: string;

  /** Extra CA certificates (PEM file) to trust for push services; only for test servers. */
  @IsOptional()
  @IsString()
  WEB_PUSH_CA_FILE?: string;

  /** How long a push service keeps a message for an offline browser (TTL), in seconds. */
  @IsInt()
  @Min(0)
  @Max(28 * 24 * 3600)
  WEB_PUSH_TTL_SECONDS: number = 24 * 3600;

  @IsUrl(URL_OPTIONS)
  FCM_BASE_URL: string = 'https://fcm.googleapis.com';

  /** OAuth2 token endpoint; when unset, the service-account file's `token_uri`. */
  @IsOptional()
  @IsUrl(URL_OPTIONS)
  FCM_TOKEN_URL?: string;

  /** The Firebase service-account JSON key (needed with PUSH_PROVIDER_ANDROID=fcm). */
  @ValidateIf((c: PushConfig) => c.PUSH_PROVIDER_ANDROID === 'fcm')
  @IsString()
  @IsNotEmpty()
  FCM_SERVICE_ACCOUNT_FILE?: string;

  @IsUrl(URL_OPTIONS)
  APNS_BASE_URL: string = 'https://api.push.apple.com';

  /** The APNs auth key (.p8) and its ids (needed with PUSH_PROVIDER_IOS=apns). */
  @ValidateIf((c: PushConfig) => c.PUSH_PROVIDER_IOS === 'apns')
  @IsString()
  @IsNotEmpty()
  APNS_KEY_FILE?: string;

  @ValidateIf((c: PushConfig) => c.PUSH_PROVIDER_IOS === 'apns')
  @IsString()
  @Matches(/^[A-Z0-9]{10}$/, { message: 'must be the 10-character key id' })
  APNS_KEY_ID?: string;

  @ValidateIf((c: PushConfig) => c.PUSH_PROVIDER_IOS === 'apns')
  @IsString()
  @Matches(/^[A-Z0-9]{10}$/, { message: 'must be the 10-character team id' })
  APNS_TEAM_ID?: string;

  /** The app's bundle id. */
  @ValidateIf((c: PushConfig) => c.PUSH_PROVIDER_IOS === 'apns')
  @IsString()
  @IsNotEmpty()
  APNS_TOPIC?: string;

  /** Extra CA certificates (PEM file) to trust for APNS_BASE_URL; only for test servers. */
  @IsOptional()
  @IsString()
  APNS_CA_FILE?: string;

  /** How long APNs keeps trying to reach an offline device (apns-expiration), in seconds. */
  @IsInt()
  @Min(0)
  @Max(30 * 24 * 3600)
  APNS_EXPIRATION_SECONDS: number = 24 * 3600;

  /** `inline`: the API process also sends; `off`: the API only relays; `only`: workers and /health, no API (libs/queue's worker modes). */
  @IsWorkerMode()
  PUSH_WORKERS: WorkerMode = 'inline';

  /** Jobs each platform's worker runs at once, per process. */
  @IsInt()
  @Min(1)
  @Max(1000)
  PUSH_CONCURRENCY: number = 16;

  /** Pushes to one platform that travel in one job (sent concurrently, recorded together). */
  @IsInt()
  @Min(1)
  @Max(500)
  PUSH_ITEMS_PER_JOB: number = 50;

  /** Keep-alive connections per provider (FCM); APNs multiplexes one HTTP/2 connection. */
  @IsInt()
  @Min(1)
  @Max(1000)
  PUSH_PROVIDER_CONNECTIONS: number = 32;

  /** How long one send may take, in seconds. */
  @IsInt()
  @Min(1)
  @Max(60)
  PUSH_TIMEOUT_SECONDS: number = 10;

  /** Seconds between attempts after a retryable failure, comma-separated; its length is the number of retries. */
  @IsRetrySchedule()
  PUSH_RETRY_SCHEDULE: string = '5,30,120,600,1800';

  /** How often the relay looks for due pushes when nothing nudged it, in milliseconds (also the scheduling granularity). */
  @IsInt()
  @Min(10)
  @Max(60_000)
  PUSH_RELAY_INTERVAL_MS: number = 250;

  /** How often the relay looks for queued pushes whose jobs Redis lost, in seconds (it also looks when Redis comes back). */
  @IsInt()
  @Min(1)
  @Max(3600)
  PUSH_SWEEP_SECONDS: number = 30;

  /** How long a worker that died keeps its jobs before another worker takes them over (BullMQ's lock), in seconds. */
  @IsInt()
  @Min(1)
  @Max(600)
  PUSH_WORKER_LOCK_SECONDS: number = 30;

  /** Pushes of one account queued in Redis at a time, per platform: one big batch never holds the others back longer. */
  @IsInt()
  @Min(1)
  @Max(100_000)
  PUSH_MAX_QUEUED_PER_ACCOUNT: number = 5000;

  /** How long a verified push token stays cached in this process (also how long a revocation takes to reach it). */
  @IsInt()
  @Min(0)
  @Max(300)
  PUSH_TOKEN_CACHE_TTL_SECONDS: number = 30;

  get retrySchedule(): number[] {
    return parseRetrySchedule(this.PUSH_RETRY_SCHEDULE);
  }

  get openTokenSecret(): string {
    return this.PUSH_OPEN_TOKEN_SECRET ?? 'ingest-push development open-token key: not for production';
  }

  get timeoutMs(): number {
    return this.PUSH_TIMEOUT_SECONDS * 1000;
  }
}
