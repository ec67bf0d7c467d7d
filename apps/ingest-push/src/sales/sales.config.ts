// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { IsEncryptionKeys } from '@app/secrets';

/** Settings of the sales ingestion (validated at start like every feature's). */
export class SalesConfig {
  /** Largest accepted file, in bytes, counted on the bytes read (chunked bodies too). */
  @IsInt()
  @Min(1024)
  INGEST_MAX_BYTES: number = 1024 * 1024 * 1024;

  /** Longest single record (a CSV row or a JSON array element), in bytes. */
  @IsInt()
  @Min(1024)
  @Max(64 * 1024 * 1024)
  INGEST_MAX_RECORD_BYTES: number = 1024 * 1024;

  /** An upload whose client sends nothing for this long is cancelled with 408. */
  @IsInt()
  @Min(100)
  INGEST_IDLE_TIMEOUT_MS: number = 30_000;

  /** A body slower than this, averaged over INGEST_RATE_WINDOW_SECONDS, is cut with 408 (nginx's client_body_timeout, Apache's MinRate). */
  @IsInt()
  @Min(1)
  INGEST_MIN_BYTES_PER_SECOND: number = 64 * 1024;

  /** The window the body rate is averaged over; the first check comes after one window. */
  @IsInt()
  @Min(1)
  @Max(3600)
  INGEST_RATE_WINDOW_SECONDS: number = 30;

  /** Uploads one instance runs at once (each holds one database connection); more get 503 with Retry-After. */
  @IsInt()
  @Min(1)
  @Max(64)
  INGEST_MAX_CONCURRENT_UPLOADS: number = 4;

  /** Uploads one account runs at once on one instance, so one account never takes every slot; more get 503. */
  @IsInt()
  @Min(1)
  @Max(64)
  INGEST_MAX_CONCURRENT_UPLOADS_PER_ACCOUNT: number = 2;

  /** Row errors stored per ingestion (the error CSV); the rest are only counted. They wait in memory until the COPY ends. */
  @IsInt()
  @Min(0)
  @Max(100_000)
  INGEST_MAX_STORED_ERRORS: number = 10_000;

  /**
   * An upload that declares at least this Content-Length takes its account's turn from its first line even when the
   * account holds lines (without erased customers), and COPYs them straight into `sales`: faster, but uploads of the
   * account that overlap it wait for it to commit. Smaller or chunked uploads stage, and hold the turn only for their merge.
   */
  @IsInt()
  @Min(0)
  INGEST_STRAIGHT_MIN_BYTES: number = 8 * 1024 * 1024;

  /**
   * Into an account that holds lines, lines go straight into `sales` in COPYs of about this many bytes, each under a
   * savepoint and held in memory until it committed: the first that meets a stored key is rolled back and staged.
   */
  @IsInt()
  @Min(1024)
  @Max(256 * 1024 * 1024)
  INGEST_STRAIGHT_SEGMENT_BYTES: number = 16 * 1024 * 1024;

  /** How often a running ingestion writes its progress and heartbeat, and reads a cancel request. */
  @IsInt()
  @Min(50)
  INGEST_PROGRESS_INTERVAL_MS: number = 1000;

  /** How long a verified sales API key stays cached in this process (also how long a revocation takes to reach it). */
  @IsInt()
  @Min(0)
  @Max(300)
  SALES_API_KEY_CACHE_TTL_SECONDS: number = 30;

  /** A `running` ingestion whose heartbeat is older than this ran in a process that stopped: it becomes `failed`. */
  @IsInt()
  @Min(1)
  INGEST_STALE_AFTER_SECONDS: number = 60;

  /** How long a finished ingestion run (completed or failed) and its row errors are kept, in days. */
  @IsInt()
  @Min(1)
  @Max(3650)
  INGEST_RETENTION_DAYS: number = 30;

  /** How often each replica looks for days whose summary rollup is to be rebuilt (an upload of its own wakes it at once too). */
  @IsInt()
  @Min(100)
  SALES_ROLLUP_INTERVAL_MS: number = 5000;

  /**
   * An account's dirty days are rebuilt once none of its uploads has run for this long: a file sent in parts re-dirties
   * the same days with every part, and is summed once after the last. Meanwhile summaries read those days from the lines.
   */
  @IsInt()
  @Min(0)
  @Max(600_000)
  SALES_ROLLUP_QUIET_MS: number = 2000;

  /** `true` refuses a CustomerCPF_CNPJ that is not a CPF or CNPJ with right check digits (the spec requires only a string). */
  @IsIn(['true', 'false'])
  SALES_VALIDATE_CPF_CNPJ: 'true' | 'false' = 'false';

  /**
   * `<keyId>:<base64 of 32 bytes>`, comma-separated (libs/secrets): the key of the first one makes the keyed hash of an
   * erased customer's CPF/CNPJ; every listed one recognises an erased customer again. Unset: erasure answers 503.
   */
  @IsOptional()
  @IsEncryptionKeys()
  ENCRYPTION_KEYS?: string;
}
