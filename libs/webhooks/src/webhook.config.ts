// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import { IsRetrySchedule, IsWorkerMode, parseRetrySchedule, type WorkerMode } from '@app/queue';
import { IsEncryptionKeys } from '@app/secrets';
import { IsInt, IsString, Max, Min, Validate, type ValidatorConstraintInterface, ValidatorConstraint } from 'class-validator';
import { TargetPolicy } from './webhook-target';

@ValidatorConstraint({ name: 'allowList' })
class AllowListConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && TargetPolicy.isValidAllowList(value);
  }
  defaultMessage(): string {
    return 'must be comma-separated host names, IP addresses or CIDRs';
  }
}

/**
 * The webhook engine's settings: a service that uses WebhooksModule lists this class among
 * its settings (it also carries ENCRYPTION_KEYS, which encrypts the signing secrets).
 */
export class WebhookServiceConfig {
  /** Keys that encrypt signing secrets at rest: `<keyId>:<base64 of 32 bytes>`, comma-separated, first encrypts (libs/secrets). */
  @IsEncryptionKeys()
  ENCRYPTION_KEYS!: string;

  /** `inline`: the API process also delivers; `off`: API only; `only`: delivery workers and /health, no API (libs/queue's worker modes). */
  @IsWorkerMode()
  WEBHOOK_WORKERS: WorkerMode = 'inline';

  /** Hosts or CIDRs that webhooks may target although they are not public (http only where the service allows it). */
  @IsString()
  @Validate(AllowListConstraint)
  WEBHOOK_ALLOWED_TARGETS: string = '';

  /** Most webhooks one owner (a docstore client, a gateway phone) may register: each one multiplies every event it subscribes to. */
  @IsInt()
  @Min(1)
  @Max(1000)
  WEBHOOKS_MAX_PER_OWNER: number = 20;

  /**
   * Most deliveries queued or in flight for one owner across all of its webhooks and all workers. Kept
   * under WEBHOOK_CONCURRENCY (jobs per worker process), one owner's backlog never holds every worker
   * slot, so another owner's delivery finds one free.
   */
  @IsInt()
  @Min(1)
  @Max(10_000)
  WEBHOOK_MAX_IN_FLIGHT_PER_OWNER: number = 128;

  /** How long one delivery attempt may take, in seconds. */
  @IsInt()
  @Min(1)
  @Max(60)
  WEBHOOK_TIMEOUT_SECONDS: number = 10;

  /** Seconds between attempts, comma-separated; its length is the number of retries. */
  @IsRetrySchedule()
  WEBHOOK_RETRY_SCHEDULE: string = '5,300,1800,7200,18000,36000,86400';

  /** A webhook whose deliveries failed without a success for this long is set inactive. */
  @IsInt()
  @Min(60)
  WEBHOOK_DISABLE_AFTER_SECONDS: number = 5 * 24 * 3600;

  /** After a secret rotation, how long the previous secret still signs, in seconds. */
  @IsInt()
  @Min(0)
  @Max(30 * 24 * 3600)
  WEBHOOK_SECRET_GRACE_SECONDS: number = 24 * 3600;

  /** Deliveries in flight per worker process (sockets waiting on receivers are cheap). */
  @IsInt()
  @Min(1)
  @Max(2000)
  WEBHOOK_CONCURRENCY: number = 256;

  /**
   * Most deliveries queued or in flight to one webhook, across all workers: the ceiling of
   * its delivery window, which starts at 128, grows with fast successes and halves on failures.
   * The relay never queues more, so a slow receiver holds at most this many worker slots.
   */
  @IsInt()
  @Min(1)
  @Max(1000)
  WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK: number = 512;

  /** How often the outbox relay looks for due deliveries when no write nudged it, in milliseconds. */
  @IsInt()
  @Min(10)
  @Max(60_000)
  WEBHOOK_RELAY_INTERVAL_MS: number = 1000;

  /**
   * How often queued deliveries are checked against the queue, in seconds: one whose job is
   * gone (Redis restarted empty) is queued again. Also checked at start and whenever Redis answers again.
   */
  @IsInt()
  @Min(1)
  WEBHOOK_REQUEUE_AFTER_SECONDS: number = 60;

  /** How long the attempt log keeps each attempt, in days. */
  @IsInt()
  @Min(1)
  @Max(3650)
  WEBHOOK_ATTEMPT_RETENTION_DAYS: number = 30;

  /** How long a finished delivery (succeeded, failed, cancelled) is kept after its last attempt, in days; its attempts go with it. */
  @IsInt()
  @Min(1)
  @Max(3650)
  WEBHOOK_DELIVERY_RETENTION_DAYS: number = 30;

  /** How long a process trusts what it read about a client's webhooks, in seconds. */
  @IsInt()
  @Min(0)
  @Max(300)
  WEBHOOK_CACHE_SECONDS: number = 5;

  get retrySchedule(): number[] {
    return parseRetrySchedule(this.WEBHOOK_RETRY_SCHEDULE);
  }
}
