// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import type { SettingDefaults } from '@app/config';
import { IsInt, Max, Min } from 'class-validator';

/** The docstore's own settings; it runs with these beside the core and webhook settings. */
export class DocstoreConfig {
  /** How long a verified token stays cached in this process; also how long a revocation takes to reach other replicas. */
  @IsInt() @Min(0) @Max(300)
  TOKEN_CACHE_TTL_SECONDS: number = 30;

  /** How often last_used_at is written back, in seconds. */
  @IsInt() @Min(1) @Max(3600)
  TOKEN_LAST_USED_FLUSH_SECONDS: number = 30;

  /** Most documents one bulk request may carry. */
  @IsInt() @Min(1) @Max(10000)
  BULK_MAX_ITEMS: number = 5000;
}

/** The docstore's defaults for shared settings. */
export const DOCSTORE_DEFAULTS: SettingDefaults = { PORT: 3001, REDIS_PREFIX: 'docstore:' };
