import { Module } from '@nestjs/common';
import { authProviders } from '@app/auth';
import { DatabaseModule } from '@app/database';
import { CoreModule } from '@app/server';
import { INGEST_PUSH_DEFAULTS } from './config/ingest-push.config';
import { INGEST_PUSH_SCHEMA, ingestPushEntities } from './database/ingest-push.entities';
import { ingestPushMigrations } from './database/ingest-push.migrations';
import { PushConfig } from './push/push.config';
import { PushModule } from './push/push.module';
import { PUSH_CREDENTIALS, pushCredentialSource } from './push/push-token-verifier.service';

export const INGEST_PUSH_VERSION = '0.1.0';

/** Sales ingestion and bulk push, each a module with its own settings and credential source. */
@Module({
  imports: [
    CoreModule.forRoot({
      service: 'ingest-push',
      version: INGEST_PUSH_VERSION,
      defaults: INGEST_PUSH_DEFAULTS,
      settings: [
        PushConfig,
      ],
    }),
    DatabaseModule.forRoot({ schema: INGEST_PUSH_SCHEMA, entities: ingestPushEntities, migrations: ingestPushMigrations }),
    PushModule,
  ],
  providers: [
    ...authProviders({
      sources: {
        [PUSH_CREDENTIALS]: pushCredentialSource,
      },
    }),
  ],
})
export class AppModule {}
