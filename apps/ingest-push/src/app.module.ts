import { Module } from '@nestjs/common';
import { authProviders, CredentialForm } from '@app/auth';
import { DatabaseModule } from '@app/database';
import { CoreModule } from '@app/server';
import { IngestPushConfig } from './config/ingest-push.config';
import { INGEST_PUSH_SCHEMA, ingestPushEntities } from './database/ingest-push.entities';
import { ingestPushMigrations } from './database/ingest-push.migrations';
import { SalesModule } from './sales/sales.module';

export const INGEST_PUSH_VERSION = '0.1.0';

/** Boots with health, logging, the error filter and the deny-by-default guard; its features arrive in later issues. */
@Module({
  imports: [
    CoreModule.forRoot({ service: 'ingest-push', version: INGEST_PUSH_VERSION, config: IngestPushConfig }),
    DatabaseModule.forRoot({ schema: INGEST_PUSH_SCHEMA, entities: ingestPushEntities, migrations: ingestPushMigrations }),
    SalesModule,
  ],
  providers: [...authProviders([CredentialForm.ApiKeyHeader, CredentialForm.Bearer])],
})
export class AppModule {}
