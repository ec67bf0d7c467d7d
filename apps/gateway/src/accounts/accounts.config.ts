// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import { IsInt, Max, Min } from 'class-validator';

/** Settings of API-key verification. */
export class AccountsConfig {
  /** How long a verified API key stays cached in this process, in seconds. */
  @IsInt()
  @Min(0)
  @Max(300)
  APIKEY_CACHE_TTL_SECONDS: number = 30;
}
