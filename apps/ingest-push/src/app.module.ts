import { Module } from '@nestjs/common';
import { authProviders } from '@app/auth';
import { DatabaseModule } from '@app/database';
import { CoreModule } from '@app/server';
import { INGEST_PUSH_SCHEMA } from './common/ingest-push.schema';
import { INGEST_PUSH_DEFAULTS } from './config/ingest-push.config';
import { ingestPushEntities } from './database/ingest-push.entities';
import { ingestPushMigrations } from './database/ingest-push.migrations';
import { PushConfig } from './push/push.config';
import { PushModule } from './push/push.module';
import { PUSH_CREDENTIALS, pushCredentialSource } from './push/push-token-verifier.service';
import { SALES_API_KEY_SOURCE } from './sales/sales-api-key.store';
import { SalesConfig } from './sales/sales.config';
import { SalesModule } from './sales/sales.module';

export const INGEST_PUSH_VERSION = '0.1.0';

/** Each feature's settings class, one per line. */
const SETTINGS = [
  SalesConfig,
  PushConfig,
];

/** Sales ingestion (`apiKey` header) and bulk push (bearer tokens), one credential source each. */
@Module({
  imports: [
    CoreModule.forRoot({ service: 'ingest-push', version: INGEST_PUSH_VERSION, settings: SETTINGS, defaults: INGEST_PUSH_DEFAULTS }),
    DatabaseModule.forRoot({ schema: INGEST_PUSH_SCHEMA, entities: ingestPushEntities, migrations: ingestPushMigrations }),
    SalesModule,
    PushModule,
  ],
  providers: [
    ...authProviders({
      sources: {
        salesApiKey: SALES_API_KEY_SOURCE,
        [PUSH_CREDENTIALS]: pushCredentialSource,
      },
    }),
  ],
})
export class AppModule {}
