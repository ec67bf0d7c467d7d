import { Module } from '@nestjs/common';
import { DatabaseModule } from '@app/database';
import { CoreModule } from '@app/server';
import { INGEST_PUSH_VERSION } from './app.module';
import { INGEST_PUSH_SCHEMA } from './common/ingest-push.schema';
import { INGEST_PUSH_DEFAULTS } from './config/ingest-push.config';
import { ingestPushEntities } from './database/ingest-push.entities';
import { ingestPushMigrations } from './database/ingest-push.migrations';
import { PushConfig } from './push/push.config';
import { PushDeliveryModule } from './push/push-delivery.module';

/**
 * What runs with PUSH_WORKERS=only: the per-platform relays and send workers, with
 * /health and no API, so sending scales apart from the API (which then runs with
 * PUSH_WORKERS=off).
 */
@Module({
  imports: [
    CoreModule.forRoot({ service: 'ingest-push-workers', version: INGEST_PUSH_VERSION, settings: [PushConfig], defaults: INGEST_PUSH_DEFAULTS }),
    DatabaseModule.forRoot({ schema: INGEST_PUSH_SCHEMA, entities: ingestPushEntities, migrations: ingestPushMigrations }),
    PushDeliveryModule,
  ],
})
export class PushWorkerModule {}
