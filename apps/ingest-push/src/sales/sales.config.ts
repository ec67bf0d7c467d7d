// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import { IsInt, Max, Min } from 'class-validator';

/** Settings of the sales ingestion (validated at start like every feature's). */
export class SalesConfig {
  /** Largest accepted file, in bytes, counted on the bytes read (chunked bodies too). */
  @IsInt() @Min(1024)
  INGEST_MAX_BYTES: number = 1024 * 1024 * 1024;

  /** Longest single record (a CSV row or a JSON array element), in bytes. */
  @IsInt() @Min(1024) @Max(64 * 1024 * 1024)
  INGEST_MAX_RECORD_BYTES: number = 1024 * 1024;

  /** An upload whose client sends nothing for this long is cancelled with 408. */
  @IsInt() @Min(100)
  INGEST_IDLE_TIMEOUT_MS: number = 30_000;

  /** Uploads one instance runs at once (each holds one database connection); more get 503 with Retry-After. */
  @IsInt() @Min(1) @Max(64)
  INGEST_MAX_CONCURRENT_UPLOADS: number = 4;

  /** How often a running ingestion writes its progress (rows so far) for GET .../ingestions/{id}. */
  @IsInt() @Min(50)
  INGEST_PROGRESS_INTERVAL_MS: number = 1000;

  /** How long a finished ingestion run (completed or failed) and its row errors are kept, in days. */
  @IsInt() @Min(1) @Max(3650)
  INGEST_RETENTION_DAYS: number = 30;
}
