import { BaseServiceConfig } from '@app/config';

export class IngestPushConfig extends BaseServiceConfig {
  override PORT: number = 3003;

  override REDIS_PREFIX: string = 'ingest-push:';
}
