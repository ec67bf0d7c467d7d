// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import { IsInt, Max, Min } from 'class-validator';

/** Settings of the change feed (GET /client/{client}/changes). */
export class ChangesConfig {
  /** Days a change stays in the feed; an older cursor is 410. */
  @IsInt()
  @Min(1)
  @Max(365)
  CHANGES_RETENTION_DAYS: number = 7;

  /** Open event streams and long polls per client, across replicas (counted in Redis); one more is 429. */
  @IsInt()
  @Min(1)
  @Max(100000)
  CHANGES_MAX_STREAMS_PER_CLIENT: number = 200;

  /** Open event streams and long polls per token, across replicas (counted in Redis); one more is 429. */
  @IsInt()
  @Min(1)
  @Max(100000)
  CHANGES_MAX_STREAMS_PER_TOKEN: number = 20;

  /**
   * Seconds a stream counts against the caps in Redis unless its replica renews it (every third of
   * this): a replica that died without closing its streams frees their places after at most this.
   */
  @IsInt()
  @Min(3)
  @Max(600)
  CHANGES_STREAM_LEASE_SECONDS: number = 30;

  /** Seconds between comment heartbeats on an idle event stream. */
  @IsInt()
  @Min(1)
  @Max(300)
  CHANGES_HEARTBEAT_SECONDS: number = 15;

  /** Milliseconds between checks of the tokens of open streams (revoked, disabled, expired, re-scoped). */
  @IsInt()
  @Min(100)
  @Max(5000)
  CHANGES_TOKEN_CHECK_MS: number = 2000;

  /**
   * Milliseconds between each replica's own look at the feed: it gives cursors to changes a writer
   * did not (it died after commit) and wakes its readers if the feed moved (a lost Redis message).
   */
  @IsInt()
  @Min(50)
  @Max(10000)
  CHANGES_SWEEP_MS: number = 1000;
}
