import { Module } from '@nestjs/common';
import { ingestPushFoundation } from './ingest-push.foundation';
import { PushDeliveryModule } from './push/push-delivery.module';

/**
 * What runs with PUSH_WORKERS=only: the per-platform relays and send workers, with
 * /health and no API, so sending scales apart from the API (which then runs with
 * PUSH_WORKERS=off).
 */
@Module({
  imports: [...ingestPushFoundation('ingest-push-workers'), PushDeliveryModule],
})
export class PushWorkerModule {}
