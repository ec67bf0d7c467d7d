import { WebhookServiceConfig } from '@app/webhooks';
import { IsInt, Max, Min } from 'class-validator';

export class DocstoreConfig extends WebhookServiceConfig {
  override PORT: number = 3001;

  override REDIS_PREFIX: string = 'docstore:';

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
