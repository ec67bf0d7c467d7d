// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import { IsInt, Max, Min } from 'class-validator';

/** Settings of message sending. */
export class MessagesConfig {
  /** Messages per second per business phone (the network's throughput tier), counted across replicas. */
  @IsInt()
  @Min(1)
  @Max(100_000)
  MESSAGES_PER_SECOND: number = 80;

  /** How long an Idempotency-Key is remembered, in seconds. */
  @IsInt()
  @Min(60)
  @Max(7 * 24 * 3600)
  IDEMPOTENCY_TTL_SECONDS: number = 24 * 3600;

  /** How long a message's status events (sent, delivered, read, failed) are kept, in days. */
  @IsInt()
  @Min(1)
  @Max(3650)
  MESSAGE_STATUS_RETENTION_DAYS: number = 30;

  /** How often the scheduled-send relay looks for messages due, in milliseconds (a message goes out at most this late, plus the send). */
  @IsInt()
  @Min(20)
  @Max(60_000)
  SCHEDULED_POLL_MS: number = 250;

  /** Scheduled-send jobs each API process runs at once (each carries up to 25 messages of one phone, sent concurrently). */
  @IsInt()
  @Min(1)
  @Max(256)
  SCHEDULED_CONCURRENCY: number = 8;
}
