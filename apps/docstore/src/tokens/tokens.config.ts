// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import { IsInt, Max, Min } from 'class-validator';

/** Settings of token verification. */
export class TokensConfig {
  /** How long a verified token stays cached in this process; also how long a revocation takes to reach other replicas. */
  @IsInt()
  @Min(0)
  @Max(300)
  TOKEN_CACHE_TTL_SECONDS: number = 30;

  /** How often last_used_at is written back, in seconds. */
  @IsInt()
  @Min(1)
  @Max(3600)
  TOKEN_LAST_USED_FLUSH_SECONDS: number = 30;
}
